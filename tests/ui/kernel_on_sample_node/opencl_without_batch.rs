// An OpenCL kernel on a node declared without `batch`.
#[adl::transform(unsafe(opencl = "__kernel void flip(__global uchar* x) {}"))]
fn flip(f: Vec<u8>) -> Vec<u8> {
    f
}

fn main() {}
