// A contest entry's launch declaration: the `// contest: ...` comment lines at the top of its .cl
// file, and the size expressions in them. Apart from the judge, so that the bench (which runs the
// instructor's reference kernel, itself a declared entry) builds without the contest's libraries.
//   // contest: global = roundup(N, 16), roundup(N, 16)
//   // contest: local = 16, 16
//   // contest: local_floats = 256, 256          (one size, in floats, per __local argument)
//   // contest: options = -cl-fast-relaxed-math  (build options; optional)
// Sizes are integer expressions of N with + - * / % ( ) and roundup(x, m), cdiv(x, m).
#pragma once

#include "workbook/matmul.hpp"

#include <string>
#include <vector>

namespace workbook::contest {

// The size the judge ranks at unless told otherwise (`judge --n`).
inline constexpr int default_ranking_n = 1024;

struct Declaration {
    std::vector<std::string> global, local, local_floats;  // expressions
    std::string options;
};

// Parses the declaration lines; throws workbook::Error naming the line and the problem.
Declaration parse_declaration(const std::string& source);
// Evaluates one size expression for N; throws workbook::Error on a bad expression.
long evaluate(const std::string& expression, long n);
// The declared launch for N; throws workbook::Error when a size is not positive.
matmul::Launch launch_geometry(const Declaration& declaration, int n);

}  // namespace workbook::contest
