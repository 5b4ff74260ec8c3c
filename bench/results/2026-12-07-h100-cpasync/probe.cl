// Does NVIDIA's OpenCL compiler take inline PTX, and which address does cp.async want for a
// __local pointer? One probe per build (-DPROBE=n), run by cpasync_probe.cpp, each in its own process.
// 1, 2: %laneid through `asm volatile` and through `__asm__ __volatile__`.
// 3: cp.async (4 bytes .ca and 16 bytes .cg, src-size 0 = zero fill) global -> local with the
//    destination written as (uint)(size_t) of the __local pointer; commit, wait_group 0, barrier.
// (3 and 4 spell inline PTX `__asm__ __volatile__`, or `asm volatile` with -DCPASM=1.)
// 4: as 3, the destination passed as 64 bits and converted with cvta.to.shared first.
// out[i] must be: 1, 2: i % 32; 3, 4: in[i] for even i / 4, 0 where i / 4 is odd (the copies of
// odd float4s zero-fill), for the 16-byte copies; in[i] + 0 for the 4-byte ones (second half).
#if CPASM
#define PASM asm volatile
#else
#define PASM __asm__ __volatile__
#endif
__kernel void probe(__global const float* in, __global float* out) {
    const int i = get_global_id(0), l = get_local_id(0);
#if PROBE == 1
    uint x;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(x));
    out[i] = (float)x;
#elif PROBE == 2
    uint x;
    __asm__ __volatile__("mov.u32 %0, %%laneid;" : "=r"(x));
    out[i] = (float)x;
#elif PROBE == 3 || PROBE == 4
    // 64 work-items: the first 16 copy a float4 each (the odd ones zero-filled), the rest scalars.
    __local float buf[128] __attribute__((aligned(16)));
    const int g = get_group_id(0) * 128;
    if (l < 16) {
        __local float* d = buf + l * 4;
        __global const float* s = in + g + l * 4;
        const uint n = (l & 1) ? 0 : 16;
#if PROBE == 3
        PASM("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"((uint)(size_t)d), "l"((ulong)(size_t)s), "r"(n) : "memory");
#else
        PASM("{ .reg .u64 p; .reg .u32 q; cvta.to.shared.u64 p, %0; cvt.u32.u64 q, p;\n"
                             " cp.async.cg.shared.global [q], [%1], 16, %2; }" ::"l"((ulong)(size_t)d), "l"((ulong)(size_t)s), "r"(n) : "memory");
#endif
    }
    for (int j = 64 + l; j < 128; j += 64) {
        __local float* d = buf + j;
        __global const float* s = in + g + j;
#if PROBE == 3
        PASM("cp.async.ca.shared.global [%0], [%1], 4, %2;" ::"r"((uint)(size_t)d), "l"((ulong)(size_t)s), "r"(4) : "memory");
#else
        PASM("{ .reg .u64 p; .reg .u32 q; cvta.to.shared.u64 p, %0; cvt.u32.u64 q, p;\n"
                             " cp.async.ca.shared.global [q], [%1], 4, %2; }" ::"l"((ulong)(size_t)d), "l"((ulong)(size_t)s), "r"(4) : "memory");
#endif
    }
    PASM("cp.async.commit_group;" ::: "memory");
    PASM("cp.async.wait_group 0;" ::: "memory");
    barrier(CLK_LOCAL_MEM_FENCE);
    out[g + l] = buf[l];
    out[g + 64 + l] = buf[64 + l];
    if (l == 0) out[get_global_size(0) * 2 + get_group_id(0)] = (float)(uint)(size_t)buf;  // the local address
#endif
}
