#include "lib/linsolve/block_diagonal_cholesky.hpp"

#include <algorithm>
#include <stdexcept>

#include "lib/core/cancel.hpp"
#include "lib/core/parallel.hpp"

namespace fsicut::linsolve {

namespace {

// A's entries for a job that may outlive the call that started it: a copy
// when the job can be abandoned, else A itself.
std::shared_ptr<const SparseMatrix> held(const SparseMatrix& A) {
  if (abandonable()) return std::make_shared<const SparseMatrix>(A);
  return std::shared_ptr<const SparseMatrix>(&A, [](const SparseMatrix*) {});
}

}  // namespace

bool BlockDiagonalCholesky::compute(const SparseMatrix& A) {
  analyze(A);
  return factorize(A);
}

void BlockDiagonalCholesky::analyze(const SparseMatrix& A) {
  partition(A);
  run_blocks({{this, &A}}, Stage::analyze);
}

bool BlockDiagonalCholesky::factorize(const SparseMatrix& A) {
  if (A.rows() != analyzed_rows_ || A.nonZeros() != analyzed_entries_)
    throw std::invalid_argument("BlockDiagonalCholesky::factorize: the matrix's pattern is not the analyzed one");
  run_blocks({{this, &A}}, Stage::factorize);
  return failed_block() < 0;
}

Index BlockDiagonalCholesky::factor_nonzeros() const {
  Index n = 0;
  for (const auto& f : factor_) n += f ? f->factor_nonzeros() : 0;
  return n;
}

double BlockDiagonalCholesky::factor_operations() const {
  double n = 0;
  for (const auto& f : factor_) n += f ? f->factor_operations() : 0;
  return n;
}

bool BlockDiagonalCholesky::compute_pair(const SparseMatrix& A, BlockDiagonalCholesky& other, const SparseMatrix& B) {
  partition(A);
  other.partition(B);
  run_blocks({{this, &A}, {&other, &B}}, Stage::compute);
  return failed_block() < 0 && other.failed_block() < 0;
}

bool BlockDiagonalCholesky::analyzed_for(const SparseMatrix& A) const {
  if (A.rows() != analyzed_rows_ || A.nonZeros() != analyzed_entries_ || !A.isCompressed()) return false;
  const Index n = A.rows();
  return std::equal(A.outerIndexPtr(), A.outerIndexPtr() + n + 1, analyzed_outer_.begin()) &&
         std::equal(A.innerIndexPtr(), A.innerIndexPtr() + A.nonZeros(), analyzed_inner_.begin());
}

bool BlockDiagonalCholesky::factorize_pair(const SparseMatrix& A, BlockDiagonalCholesky& other,
                                           const SparseMatrix& B) {
  if (!analyzed_for(A) || !other.analyzed_for(B))
    throw std::invalid_argument("BlockDiagonalCholesky::factorize_pair: a matrix's pattern is not the analyzed one");
  run_blocks({{this, &A}, {&other, &B}}, Stage::factorize);
  return failed_block() < 0 && other.failed_block() < 0;
}

void BlockDiagonalCholesky::run_blocks(const std::vector<std::pair<BlockDiagonalCholesky*, const SparseMatrix*>>& parts,
                                       Stage stage) {
  // One block's work: everything it touches is owned here, so an abandoned
  // job runs on safely while its parts are forgotten.
  struct Task {
    std::shared_ptr<Cholesky> factor;
    std::shared_ptr<const SparseMatrix> matrix;
    int start, size;
  };
  std::vector<Task> tasks;
  for (const auto& [f, M] : parts) {
    const std::shared_ptr<const SparseMatrix> matrix = held(*M);
    for (std::size_t j = 0; j < f->factor_.size(); ++j) {
      if (stage != Stage::factorize) f->factor_[j] = std::make_shared<Cholesky>();
      tasks.push_back({f->factor_[j], matrix, f->start_[j], f->start_[j + 1] - f->start_[j]});
    }
  }
  try {
    run_abandonable("cholesky", [tasks = std::move(tasks), stage] {
      parallel_for(0, static_cast<Index>(tasks.size()), [&](Index k) {
        const Task& t = tasks[k];
        const Eigen::SparseMatrix<Real> block(t.matrix->block(t.start, t.start, t.size, t.size));
        if (stage == Stage::analyze) t.factor->analyzePattern(block);
        else if (stage == Stage::factorize) t.factor->factorize(block);
        else t.factor->compute(block);
      });
    });
  } catch (...) {
    for (const auto& part : parts) part.first->forget();
    throw;
  }
  if (stage == Stage::analyze) return;
  for (const auto& part : parts)
    for (std::size_t j = 0; j < part.first->factor_.size(); ++j)
      part.first->ok_[j] = part.first->factor_[j]->info() == Eigen::Success;
}

void BlockDiagonalCholesky::forget() { *this = BlockDiagonalCholesky(); }

void BlockDiagonalCholesky::solve_pair(const Vector& b, Vector& x, const BlockDiagonalCholesky* other,
                                       Vector* y) const {
  x.resize(b.size());
  if (other) y->resize(b.size());
  const Index blocks = static_cast<Index>(factor_.size());
  parallel_for(0, other ? blocks + static_cast<Index>(other->factor_.size()) : blocks, [&](Index k) {
    const BlockDiagonalCholesky& f = k < blocks ? *this : *other;
    Vector& out = k < blocks ? x : *y;
    const Index j = k < blocks ? k : k - blocks;
    const int s = f.start_[j], m = f.start_[j + 1] - s;
    out.segment(s, m) = f.factor_[j]->solve(b.segment(s, m));
  });
}

int BlockDiagonalCholesky::failed_block() const {
  const auto at = std::find(ok_.begin(), ok_.end(), char(0));
  return at == ok_.end() ? -1 : static_cast<int>(at - ok_.begin());
}

void BlockDiagonalCholesky::partition(const SparseMatrix& A) {
  const int n = static_cast<int>(A.rows());
  start_ = {0};
  int reach = 0;  // the farthest column of the rows so far
  for (int i = 0; i < n; ++i) {
    for (SparseMatrix::InnerIterator it(A, i); it; ++it) reach = std::max(reach, static_cast<int>(it.col()));
    if (reach <= i) start_.push_back(i + 1);
  }
  factor_.clear();
  factor_.resize(start_.size() - 1);
  analyzed_rows_ = A.rows();
  analyzed_entries_ = A.nonZeros();
  analyzed_outer_.clear();
  analyzed_inner_.clear();
  if (A.isCompressed()) {
    analyzed_outer_.assign(A.outerIndexPtr(), A.outerIndexPtr() + n + 1);
    analyzed_inner_.assign(A.innerIndexPtr(), A.innerIndexPtr() + A.nonZeros());
  }
  ok_.assign(factor_.size(), 0);
}

Report solve_refined(const BlockDiagonalCholesky& f, const SparseMatrix& A, const Vector& b, Vector& x,
                     Real tolerance) {
  Report report;
  report.unknowns = static_cast<int>(b.size());
  const Real bnorm = b.norm();
  if (!(bnorm > 0)) {
    x.setZero(b.size());
    report.converged = report.met_tolerance = true;
    return report;
  }
  f.solve(b, x);
  report.iterations = 1;
  Vector r = b - A * x, dx;
  Real residual = r.norm();
  while (residual > tolerance * bnorm && report.iterations <= MAX_REFINEMENTS) {
    f.solve(r, dx);
    const Vector refined = x + dx;
    const Vector r_refined = b - A * refined;
    const Real refined_residual = r_refined.norm();
    if (!(refined_residual < residual)) break;  // round-off reached: refining further only adds noise
    x = refined;
    r = r_refined;
    residual = refined_residual;
    ++report.iterations;
  }
  report.relative_residual = residual / bnorm;
  report.round_off_floor = round_off_floor(A, b, x);
  report.met_tolerance = report.relative_residual <= tolerance && x.allFinite();
  report.converged =
      report.relative_residual <= std::max(tolerance, ROUND_OFF_MARGIN * report.round_off_floor) && x.allFinite();
  return report;
}

}  // namespace fsicut::linsolve
