//! The same robot log read from two places (object storage and the local
//! file): every message or sample equal, for the object storage tests.

#![allow(dead_code)]

use adl::Sensor;
use adl::files::px4::Px4Log;

/// Every message of `remote` equals `local`'s, read in log-time order
/// across the topics (as a synchronized loader reads them).
pub(crate) fn same_bag(remote: &adl::files::ros::Bag, local: &adl::files::ros::Bag) -> usize {
    assert_eq!(remote.topics(), local.topics());
    let mut order = Vec::new();
    let mut topics = Vec::new();
    for name in local.topics().keys() {
        let (r, l) = (remote.topic(name).unwrap(), local.topic(name).unwrap());
        assert_eq!(r.len(), l.len(), "{name}");
        let t = topics.len();
        order.extend(l.log_times_ns().enumerate().map(|(i, ns)| (ns, t, i)));
        topics.push((r, l));
    }
    order.sort();
    for &(_, t, i) in &order {
        let (r, l) = &topics[t];
        assert_eq!(r.get(i).unwrap(), l.get(i).unwrap(), "{}[{i}]", l.name());
    }
    order.len()
}

/// Every sample of every sensor of `remote` equals `local`'s (by their
/// printed values: a NaN field equals itself), with the same sensors,
/// timestamps and completeness; the number of samples compared.
pub(crate) fn same_px4_log(remote: &Px4Log, local: &Px4Log) -> usize {
    assert_eq!(remote.sensor_names(), local.sensor_names());
    assert_eq!(remote.completeness(), local.completeness());
    let mut samples = 0;
    for (r, l) in remote.sensors().iter().zip(local.sensors()) {
        assert_eq!(
            r.metadata().as_slice(),
            l.metadata().as_slice(),
            "{}",
            l.name()
        );
        for i in 0..l.len() {
            let (r, l_) = (r.get(i).unwrap(), l.get(i).unwrap());
            assert_eq!(format!("{r:?}"), format!("{l_:?}"), "{} {i}", l.name());
            samples += 1;
        }
    }
    samples
}
