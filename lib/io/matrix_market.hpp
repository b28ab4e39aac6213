#pragma once
// Sparse matrices and vectors in the Matrix Market exchange format (NIST), the
// text format other solver libraries read (AMGCL, hypre's examples, PETSc,
// SciPy's mmread, Eigen's loadMarket), so that they can be timed on exactly
// the systems fsicut solves.
//
//   matrix:  "%%MatrixMarket matrix coordinate real general|symmetric",
//            "rows cols entries", then "i j value" per stored entry, 1-based;
//            symmetric: the lower triangle (i >= j) only.
//   vector:  "%%MatrixMarket matrix array real general", "rows 1", then one
//            value per line.
// Values carry 17 significant digits, which round-trips every double exactly.
// Files are written atomically (io/atomic.hpp: OutputError 73/74 on failure).
#include <filesystem>

#include "lib/linsolve/pcg.hpp"

namespace fsicut::io {

enum class MatrixSymmetry { general, symmetric };

// Writes `matrix`; with MatrixSymmetry::symmetric it must be exactly symmetric
// (std::invalid_argument otherwise) and only its lower triangle is stored.
void write_matrix_market(const std::filesystem::path& file, const linsolve::SparseMatrix& matrix,
                         MatrixSymmetry symmetry);

// Writes `vector` as a one-column array.
void write_matrix_market(const std::filesystem::path& file, const linsolve::Vector& vector);

}  // namespace fsicut::io
