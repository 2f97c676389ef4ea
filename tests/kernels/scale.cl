// Multiply every element of a batch by `factor`: the OpenCL body of the
// `scale` batch node in tests/transform.rs.
__kernel void scale(__global float* x, const float factor) {
    size_t i = get_global_id(0);
    x[i] = x[i] * factor;
}
