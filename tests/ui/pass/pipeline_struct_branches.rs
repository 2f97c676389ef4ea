// Parallel branches over the fields of a struct sample, each a whole
// pipeline with its own collate; branches nest; nodes before and after.
use adl::pipeline::run;
use adl::{pipeline, transform};
use ndarray::Array1;

struct Frame {
    radar: Radar,
    label: i64,
    name: String,
}

struct Radar {
    range: f32,
    doppler: Vec<f32>,
}

#[transform]
fn double(x: i64) -> i64 {
    x * 2
}

#[transform(batch)]
fn mean(b: Array1<f32>) -> f32 {
    b.mean().unwrap_or(0.0)
}

fn frame(i: i64) -> Frame {
    Frame {
        radar: Radar {
            range: i as f32,
            doppler: vec![1.0, 2.0],
        },
        label: i,
        name: format!("f{i}"),
    }
}

pub(crate) fn main() {
    let p = pipeline! {
        pre: |i: i64| frame(i),
        Frame {
            radar: Radar {
                range: { collate: default, batch: mean },
                doppler: { sample: |d| d.len(), collate: default },
            },
            label: { sample: double, collate: default },
            name: { collate: default },
        },
        post: |b| b,
    };
    let batch = run(&p, vec![1, 3]).unwrap();
    assert_eq!(batch.radar.range, 2.0);
    assert_eq!(batch.radar.doppler, Array1::from(vec![2usize, 2]));
    assert_eq!(batch.label, Array1::from(vec![2i64, 6]));
    assert_eq!(batch.name, vec!["f1", "f3"]);

    let q = pipeline! {
        sample: |i: i64| frame(i),
        Frame { label: { collate: default } },
        batch: |b| b.label.sum(),
    };
    assert_eq!(run(&q, vec![1, 2]).unwrap(), 3);
}
