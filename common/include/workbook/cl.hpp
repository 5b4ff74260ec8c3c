// The one include for OpenCL in this project. The CLHPP configuration (exceptions, target and
// minimum versions) comes from the workbook_common target's compile definitions, never from a
// #define in a source file, so every translation unit sees the same cl:: types.
#pragma once

#include <CL/opencl.hpp>
