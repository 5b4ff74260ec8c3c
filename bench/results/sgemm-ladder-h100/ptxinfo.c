/* Exploration helper: builds FILE with OPTIONS plus -cl-nv-verbose on the first GPU, prints the
   build log (NVIDIA's: ptxas registers, spills, local memory) and writes the PTX to OUTFILE.
   ptxinfo FILE "OPTIONS" OUTFILE */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char** argv) {
    if (argc < 4) { fprintf(stderr, "usage: ptxinfo FILE OPTIONS OUTFILE\n"); return 2; }
    FILE* f = fopen(argv[1], "rb"); if (!f) { perror(argv[1]); return 1; }
    static char src[1 << 20]; size_t len = fread(src, 1, sizeof src - 1, f); src[len] = 0; fclose(f);
    static char opts[4096]; snprintf(opts, sizeof opts, "%s -cl-nv-verbose", argv[2]);
    cl_platform_id ps[8]; cl_uint np = 0; clGetPlatformIDs(8, ps, &np);
    cl_device_id dev = 0; for (cl_uint i = 0; i < np && !dev; i++) if (clGetDeviceIDs(ps[i], CL_DEVICE_TYPE_GPU, 1, &dev, 0)) dev = 0;
    if (!dev) { fprintf(stderr, "no GPU\n"); return 1; }
    cl_int e; cl_context ctx = clCreateContext(0, 1, &dev, 0, 0, &e); if (e) return 1;
    const char* s = src; cl_program p = clCreateProgramWithSource(ctx, 1, &s, &len, &e); if (e) return 1;
    cl_int be = clBuildProgram(p, 1, &dev, opts, 0, 0);
    static char log[1 << 16]; log[0] = 0; clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, 0);
    printf("%s [%s]: build %s\n%s\n", argv[1], argv[2], be ? "FAILED" : "ok", log);
    if (be) return 1;
    size_t bs = 0; clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof bs, &bs, 0);
    unsigned char* bin = malloc(bs + 1); unsigned char* bins[1] = {bin};
    clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof bins, bins, 0);
    FILE* o = fopen(argv[3], "wb"); if (o) { fwrite(bin, 1, bs, o); fclose(o); }
    return 0;
}
