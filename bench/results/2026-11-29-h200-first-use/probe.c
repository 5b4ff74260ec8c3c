/* Exploration harness (not part of the workbook): times one SGEMM kernel file on the first GPU.
   probe FILE "OPTIONS" N GX GY LX LY LOCALBYTES_A LOCALBYTES_B REPS
   kernel mmul(int N, global A, global B, global C[, local a, local b]) ; LOCALBYTES 0: not passed */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#define CK(x) do { cl_int e_ = (x); if (e_) { fprintf(stderr, "%s: %d at %d\n", #x, e_, __LINE__); exit(1); } } while (0)
static int cmp(const void* a, const void* b) { double x = *(const double*)a, y = *(const double*)b; return x < y ? -1 : x > y; }
int main(int argc, char** argv) {
    if (argc < 11) { fprintf(stderr, "usage\n"); return 2; }
    const char* file = argv[1]; const char* opts = argv[2]; int N = atoi(argv[3]);
    size_t g[2] = {strtoul(argv[4], 0, 10), strtoul(argv[5], 0, 10)}, l[2] = {strtoul(argv[6], 0, 10), strtoul(argv[7], 0, 10)};
    size_t la = strtoul(argv[8], 0, 10), lb = strtoul(argv[9], 0, 10); int reps = atoi(argv[10]);
    FILE* f = fopen(file, "rb"); if (!f) { perror(file); return 1; }
    static char src[1 << 20]; size_t len = fread(src, 1, sizeof src - 1, f); src[len] = 0; fclose(f);
    cl_platform_id ps[8]; cl_uint np; CK(clGetPlatformIDs(8, ps, &np));
    cl_device_id dev = 0; for (cl_uint i = 0; i < np && !dev; i++) if (clGetDeviceIDs(ps[i], CL_DEVICE_TYPE_GPU, 1, &dev, 0)) dev = 0;
    if (!dev) { fprintf(stderr, "no GPU\n"); return 1; }
    cl_int e; cl_context ctx = clCreateContext(0, 1, &dev, 0, 0, &e); CK(e);
    cl_command_queue q = clCreateCommandQueue(ctx, dev, CL_QUEUE_PROFILING_ENABLE, &e); CK(e);
    const char* s = src; cl_program p = clCreateProgramWithSource(ctx, 1, &s, &len, &e); CK(e);
    if (clBuildProgram(p, 1, &dev, opts, 0, 0)) { static char log[1 << 16]; clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, 0); fprintf(stderr, "build failed:\n%s\n", log); return 1; }
    cl_kernel k = clCreateKernel(p, "mmul", &e); CK(e);
    size_t bytes = (size_t)N * N * 4; float* A = malloc(bytes), *B = malloc(bytes), *C = malloc(bytes);
    srand(7); for (size_t i = 0; i < (size_t)N * N; i++) { A[i] = rand() / (float)RAND_MAX - 0.5f; B[i] = rand() / (float)RAND_MAX - 0.5f; C[i] = NAN; }
    cl_mem a = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, A, &e); CK(e);
    cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, B, &e); CK(e);
    cl_mem c = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY | CL_MEM_COPY_HOST_PTR, bytes, C, &e); CK(e);
    CK(clSetKernelArg(k, 0, sizeof(int), &N)); CK(clSetKernelArg(k, 1, sizeof a, &a)); CK(clSetKernelArg(k, 2, sizeof b, &b)); CK(clSetKernelArg(k, 3, sizeof c, &c));
    if (la) CK(clSetKernelArg(k, 4, la, 0)); if (lb) CK(clSetKernelArg(k, 5, lb, 0));
    CK(clEnqueueNDRangeKernel(q, k, 2, 0, g, l, 0, 0, 0)); CK(clFinish(q));
    CK(clEnqueueReadBuffer(q, c, CL_TRUE, 0, bytes, C, 0, 0, 0));
    double worst = 0; for (int t = 0; t < 200; t++) { int r = (t * 7919 + 13) % N, col = (t * 104729 + 5) % N; if (t == 0) { r = N - 1; col = N - 1; }
        double ref = 0, mag = 0; for (int kk = 0; kk < N; kk++) { ref += (double)A[(size_t)r * N + kk] * B[(size_t)kk * N + col]; mag += fabs((double)A[(size_t)r * N + kk] * B[(size_t)kk * N + col]); }
        double err = fabs(C[(size_t)r * N + col] - ref) / (mag + 1e-30); if (!(err <= worst)) worst = isnan(err) ? INFINITY : err > worst ? err : worst; }
    double* ms = malloc(sizeof(double) * reps);
    for (int i = 0; i < reps; i++) { cl_event ev; CK(clEnqueueNDRangeKernel(q, k, 2, 0, g, l, 0, 0, &ev)); CK(clWaitForEvents(1, &ev));
        cl_ulong t0, t1; clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, 8, &t0, 0); clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, 8, &t1, 0); ms[i] = (t1 - t0) * 1e-6; clReleaseEvent(ev); }
    qsort(ms, reps, sizeof *ms, cmp);
    double med = ms[reps / 2]; printf("%-28s N=%5d %8.1f GFLOPS (median %.3f ms, min %.3f) relerr %.1e %s\n", file, N, 2.0 * N * N * (double)N / med * 1e-6, med, ms[0], worst, worst < 1e-4 ? "ok" : "WRONG");
    return worst < 1e-4 ? 0 : 3;
}
