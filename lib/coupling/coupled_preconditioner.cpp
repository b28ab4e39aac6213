#include "lib/coupling/coupled_preconditioner.hpp"

#include <memory>
#include <utility>
#include <vector>

#include <Eigen/Dense>
#include <Eigen/SparseCore>

#include "lib/coupling/coupled_solid_block.hpp"
#include "lib/linsolve/sparse.hpp"

namespace fsicut::coupling {

SpdWorkspace::SpdWorkspace() : kept_(std::make_unique<Kept>()) {}
SpdWorkspace::~SpdWorkspace() = default;
SpdWorkspace::SpdWorkspace(const SpdWorkspace&) : SpdWorkspace() {}
SpdWorkspace& SpdWorkspace::operator=(const SpdWorkspace& other) {
  if (this != &other) kept_ = std::make_unique<Kept>();
  return *this;
}
SpdWorkspace::SpdWorkspace(SpdWorkspace&& other) noexcept : kept_(std::move(other.kept_)) {}
SpdWorkspace& SpdWorkspace::operator=(SpdWorkspace&& other) noexcept {
  kept_ = std::move(other.kept_);
  return *this;
}
const SpdWorkspace::Counts& SpdWorkspace::counts() const { return kept_->counts; }

SchurPreconditioner::SchurPreconditioner(const CoupledSystem& sys, const SpdSystem& spd, Real sigma,
                                         linsolve::Preconditioner kind, SpdWorkspace::Kept* kept)
    : np_(sys.cells()),
      nv_(sys.dofs()),
      alpha_(spd.alpha),
      kept_(kept),
      z2_(kept ? &kept->z2 : &own_z2_),
      solid_(kept ? &kept->solid : &own_solid_) {
  const SparseMatrix& A = spd.matrix;
  if (nv_ > 0) {
    const SolidSplit z = split_solid(sys.solid, sigma);
    solid_ok_ = factorize_solid(z.z2, solid_matrix(sys.solid));
    if (!solid_ok_) return;
    z1_inverse_ = z.z1_inverse;
  }
  if (np_ == 0) return;
  SparseMatrix A11 = linsolve::leading_block(A, np_);
  if (nv_ == 0 || kind != linsolve::Preconditioner::multigrid ||
      static_cast<int>(sys.grid_cells.size()) != np_) {
    pressure_ = linsolve::make_preconditioner(kind, std::move(A11), sys.grid_cells);
  } else {
    // C x = J (Z1^-1 - A_s^-1) J^T x on the rows of J with entries (the
    // cells the solids' surfaces cross), J_ those rows.
    std::vector<int> wet;
    for (int r = 0; r < sys.coupling.outerSize(); ++r)
      if (SparseMatrix::InnerIterator(sys.coupling, r)) wet.push_back(r);
    J_.resize(static_cast<Index>(wet.size()), nv_);
    std::vector<Eigen::Triplet<Real, int>> t;
    for (std::size_t k = 0; k < wet.size(); ++k)
      for (SparseMatrix::InnerIterator it(sys.coupling, wet[k]); it; ++it)
        t.emplace_back(static_cast<int>(k), static_cast<int>(it.col()), it.value());
    J_.setFromTriplets(t.begin(), t.end());
    Jt_ = linsolve::transposed(J_);
    multigrid_ = multigrid(std::move(A11), sys.grid_cells, std::move(wet));
    if (multigrid_->ok()) pressure_ = [mg = multigrid_](const Vector& r, Vector& z) { mg->apply(r, z); };
  }
  if (nv_ > 0) {
    A12_ = A.topRightCorner(np_, nv_);
    A21_ = A.bottomLeftCorner(nv_, np_);
  }
}

SchurPreconditioner::~SchurPreconditioner() {
  if (multigrid_ && kept_) multigrid_->set_lowering({}, {});
}

bool SchurPreconditioner::factorize_solid(const SparseMatrix& z2, const SparseMatrix& solid) {
  if (kept_ && z2_->analyzed_for(z2) && solid_->analyzed_for(solid)) {
    ++kept_->counts.solid_analyses_kept;
    return z2_->factorize_pair(z2, *solid_, solid);
  }
  if (kept_) ++kept_->counts.solid_analyses_built;
  return z2_->compute_pair(z2, *solid_, solid);
}

std::shared_ptr<linsolve::Multigrid> SchurPreconditioner::multigrid(SparseMatrix A11, const std::vector<Vec3i>& cells,
                                                                    std::vector<int> wet) {
  const auto lowering = [this](const Vector& x, Vector& y) {
    jt_x_ = Jt_ * x;
    solid_->solve(jt_x_, lowering_);
    lowering_ = z1_inverse_.cwiseProduct(jt_x_) - lowering_;
    y = J_ * lowering_;
  };
  if (kept_ && kept_->multigrid && kept_->multigrid->built_on(cells)) {
    ++kept_->counts.hierarchies_kept;
    kept_->multigrid->refresh(std::move(A11));
    kept_->multigrid->set_lowering(lowering, std::move(wet));
    return kept_->multigrid;
  }
  // The kept hierarchy is of other cells: let it go before the new one is
  // built, so that two hierarchies are never held at once.
  if (kept_) kept_->multigrid.reset();
  auto mg = std::make_shared<linsolve::Multigrid>(std::move(A11), cells, lowering, std::move(wet));
  if (kept_) {
    ++kept_->counts.hierarchies_built;
    kept_->multigrid = mg;
  }
  return mg;
}

void SchurPreconditioner::operator()(const Vector& r, Vector& z) const {
  z.resize(r.size());
  if (nv_ == 0) {
    pressure_(r, z);
    return;
  }
  if (np_ == 0) {
    solid_block_solve(r, w_);
    z = w_;
    return;
  }
  solid_block_solve(r.tail(nv_), w_);
  r1_ = r.head(np_) - A12_ * w_;
  pressure_(r1_, z1_);
  r2_ = r.tail(nv_) - A21_ * z1_;
  solid_block_solve(r2_, w_);
  z.tail(nv_) = w_;
  z.head(np_) = z1_;
}

void SchurPreconditioner::solid_block_solve(const Vector& b, Vector& x) const {
  z2_->solve_pair(b, x, solid_, &solid_x_);
  x = (x - solid_x_) / (alpha_ * alpha_);
}

Deflation::Deflation(const SpdSystem& spd, linsolve::ApplyPreconditioner inner) : inner_(std::move(inner)) {
  const Index n = spd.matrix.rows();
  Z_.resize(n, spd.low_rank.cols());
  Z_.reserve(spd.low_rank.nonZeros());
  for (int r = 0; r < spd.low_rank.outerSize(); ++r)
    for (SparseMatrix::InnerIterator it(spd.low_rank, r); it; ++it) Z_.insert(r, it.col()) = it.value();
  Z_.makeCompressed();
  const SparseMatrix UtU = SparseMatrix(spd.low_rank.transpose()) * spd.low_rank;
  AZ_ = SparseMatrix(spd.matrix * Z_) + SparseMatrix(Z_ * UtU);  // Z U^T U = [U U^T U; 0]
  const Eigen::MatrixXd E = Eigen::MatrixXd(Eigen::SparseMatrix<Real>(SparseMatrix(Z_.transpose()) * AZ_));
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(0.5 * (E + E.transpose()));
  const Vector lambda = eig.eigenvalues();
  const Real largest = lambda.size() > 0 ? lambda.cwiseAbs().maxCoeff() : 0;
  Vector inverse = Vector::Zero(lambda.size());
  for (Index k = 0; k < lambda.size(); ++k)
    if (lambda[k] > PSEUDO_INVERSE_CUTOFF * largest) inverse[k] = 1 / lambda[k];
  E_plus_ = eig.eigenvectors() * inverse.asDiagonal() * eig.eigenvectors().transpose();
}

void Deflation::operator()(const Vector& r, Vector& z) const {
  const Vector coarse = E_plus_ * (Z_.transpose() * r);
  shifted_ = r - AZ_ * coarse;
  inner_(shifted_, z);
  z += Z_ * (coarse - E_plus_ * (AZ_.transpose() * z));
}

linsolve::ApplyPreconditioner spd_preconditioner(const CoupledSystem& sys, const SpdSystem& spd,
                                                 const CoupledSettings& settings) {
  auto p = std::make_shared<SchurPreconditioner>(sys, spd, settings.sigma, settings.preconditioner);
  if (!p->ok()) return {};
  linsolve::ApplyPreconditioner apply = [p](const Vector& r, Vector& z) { (*p)(r, z); };
  if (spd.low_rank.cols() == 0) return apply;
  auto deflated = std::make_shared<Deflation>(spd, apply);
  return [deflated](const Vector& r, Vector& z) { (*deflated)(r, z); };
}

}  // namespace fsicut::coupling
