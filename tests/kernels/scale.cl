// Multiply every element of a batch by `factor`: the OpenCL body of the
// `scale` batch node in tests/transform.rs, with the kernel ABI of
// `adl::kernel` and the node's own argument `factor` (from `args(factor)`).
__kernel void scale(__global const float* input, __global float* output,
                    __global const uchar* flags, const ulong n,
                    const ulong per_sample, const ulong channels,
                    const ulong inner, const ulong last,
                    const float factor) {
    size_t i = get_global_id(0);
    output[i] = input[i] * factor;
}
