// A node returns its output.
#[adl::transform]
fn log(x: u8) {
    println!("{x}");
}

fn main() {}
