use adl_core::Transform;
use adl_core::exec::{Sequential, WithAccelerator};
use adl_core::kernel::Normalize;
use adl_graph::opencl::{DeviceChoice, OpenCl};
use ndarray::Array4;

#[test]
fn smoke() {
    let device = OpenCl::open(&DeviceChoice::Auto)
        .unwrap()
        .expect("a device");
    let x = Array4::from_shape_fn((4, 3, 8, 8), |(b, c, h, w)| {
        (b * 7 + c * 3 + h * 5 + w) as f32 / 17.0
    });
    let node = Normalize::per_channel([0.485, 0.456, 0.406], [0.229, 0.224, 0.225]);
    let cpu = node.apply(x.clone()).unwrap();
    let seq = Sequential::new();
    let cx = WithAccelerator::new(&seq, &device);
    let gpu = node.apply_in(&cx, x).unwrap();
    assert_eq!(cpu, gpu);
}
