// The instructor's contest kernel for CPUs (PoCL): C = A·B for any N, row-major.
//
// A CPU runs a work-group as a loop on one core, so this kernel is written as one work-item per
// work-group doing a whole block of C, the way a BLAS does on a CPU:
// - the micro-tile: MR rows x 2*VW columns of C kept in 2*MR vector registers (VW floats each,
//   the device's native vector width). Each step of k loads two vectors of B, broadcasts MR
//   values of A and does 2*MR fused multiply-adds: enough independent ones to keep the FMA units
//   busy and few enough registers that nothing spills.
// - B packed: KC rows of the work-item's 2*VW columns copied to local memory, contiguous, so the
//   micro-tile reads B sequentially (in the matrix, consecutive k are N floats apart: a new page
//   every step once N reaches 1024, which defeats prefetching). Past the last column the packed
//   panel holds zeros, so edge columns need no other code.
// - each packed panel serves RB micro-tiles, down RB*MR rows of C.
// Rows past the last one read the last row (a valid address) and are never stored.
//
// Parameters (build options, chosen per device by contest/reference.cpp): VW (4, 8 or 16), MR,
// RB, KC. The work-group is 1 x 1; local memory: KC * 2 * VW floats.
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define floatv CAT(float, VW)
#define vloadv CAT(vload, VW)
#define vstorev CAT(vstore, VW)
#define NR (2 * VW)

__kernel __attribute__((reqd_work_group_size(1, 1, 1)))
void mmul(const int N, __global const float* A, __global const float* B, __global float* C,
          __local float* Bp) {
    const int j0 = get_global_id(1) * NR;
    const bool full = j0 + NR <= N;  // all NR columns inside the matrix
    for (int kc = 0; kc < N; kc += KC) {
        const int kn = min(KC, N - kc);
        if (full) {
            for (int k = 0; k < kn; k++) {
                vstorev(vloadv(0, B + (size_t)(kc + k) * N + j0), 0, Bp + k * NR);
                vstorev(vloadv(0, B + (size_t)(kc + k) * N + j0 + VW), 0, Bp + k * NR + VW);
            }
        } else {
            for (int k = 0; k < kn; k++)
                for (int c = 0; c < NR; c++) Bp[k * NR + c] = j0 + c < N ? B[(size_t)(kc + k) * N + j0 + c] : 0.0f;
        }
        for (int rb = 0; rb < RB; rb++) {
            const int i0 = (get_global_id(0) * RB + rb) * MR;
            if (i0 >= N) break;
            floatv c0[MR], c1[MR];
            __global const float* a[MR];  // pointers, not indices: no index arithmetic in the loop
            #pragma unroll
            for (int r = 0; r < MR; r++) {
                a[r] = A + (size_t)min(i0 + r, N - 1) * N + kc;
                c0[r] = (floatv)(0.0f);
                c1[r] = (floatv)(0.0f);
            }
            for (int k = 0; k < kn; k++) {
                const floatv b0 = vloadv(0, Bp + k * NR);
                const floatv b1 = vloadv(0, Bp + k * NR + VW);
                #pragma unroll
                for (int r = 0; r < MR; r++) {
                    const floatv ar = (floatv)(a[r][k]);
                    c0[r] = fma(ar, b0, c0[r]);  // fma, not mad: mad compiles to a multiply and an add here
                    c1[r] = fma(ar, b1, c1[r]);
                }
            }
            // Add this panel's part of C to what the earlier panels left there.
            #pragma unroll
            for (int r = 0; r < MR; r++) {
                if (i0 + r >= N) break;
                __global float* c = C + (size_t)(i0 + r) * N + j0;
                if (full) {
                    if (kc > 0) {
                        c0[r] += vloadv(0, c);
                        c1[r] += vloadv(0, c + VW);
                    }
                    vstorev(c0[r], 0, c);
                    vstorev(c1[r], 0, c + VW);
                } else {
                    float t[NR];
                    vstorev(c0[r], 0, t);
                    vstorev(c1[r], 0, t + VW);
                    for (int x = 0; x < N - j0; x++) c[x] = kc > 0 ? c[x] + t[x] : t[x];
                }
            }
        }
    }
}
