// Options of the wrong shape, each reported: a stage with a value, a
// number as the kernel, a name that is not a string, both stages.
#[adl::transform(batch(fast), unsafe(opencl = 42), name = flip, sample)]
fn flip(f: Vec<u8>) -> Vec<u8> {
    f
}

fn main() {}
