#include "lib/io/matrix_market.hpp"

#include <cstdio>
#include <stdexcept>
#include <string>

#include "lib/io/atomic.hpp"

namespace fsicut::io {
namespace {

// %.17g: enough significant digits that every double reads back exactly.
void append_value(std::string& out, Real v) {
  char text[40];
  std::snprintf(text, sizeof text, "%.17g\n", v);
  out += text;
}

}  // namespace

void write_matrix_market(const std::filesystem::path& file, const linsolve::SparseMatrix& matrix,
                         MatrixSymmetry symmetry) {
  const bool symmetric = symmetry == MatrixSymmetry::symmetric;
  if (symmetric && (matrix.rows() != matrix.cols() || !matrix.isApprox(linsolve::SparseMatrix(matrix.transpose()), 0)))
    throw std::invalid_argument("write_matrix_market: the matrix is not symmetric");
  std::string entries;
  Index count = 0;
  for (int c = 0; c < matrix.outerSize(); ++c)
    for (linsolve::SparseMatrix::InnerIterator it(matrix, c); it; ++it) {
      if (symmetric && it.row() < it.col()) continue;
      char where[48];
      std::snprintf(where, sizeof where, "%lld %lld ", static_cast<long long>(it.row()) + 1,
                    static_cast<long long>(it.col()) + 1);
      entries += where;
      append_value(entries, it.value());
      ++count;
    }
  std::string text = std::string("%%MatrixMarket matrix coordinate real ") + (symmetric ? "symmetric" : "general") +
                     "\n" + std::to_string(matrix.rows()) + " " + std::to_string(matrix.cols()) + " " +
                     std::to_string(count) + "\n";
  text += entries;
  write_text_atomically(file, text);
}

void write_matrix_market(const std::filesystem::path& file, const linsolve::Vector& vector) {
  std::string text = "%%MatrixMarket matrix array real general\n" + std::to_string(vector.size()) + " 1\n";
  for (Index i = 0; i < vector.size(); ++i) append_value(text, vector[i]);
  write_text_atomically(file, text);
}

}  // namespace fsicut::io
