//! Checks across the options and the item: what neither can see alone.

use adl_core::graph::{Rule, Stage};

use super::options::Options;
use crate::diagnostic::{Errors, rule_error};

/// A kernel only on a batch node (rule `kernel_on_sample_node`, at
/// `opencl`). The kernel is dropped so that the expansion still follows.
pub(crate) fn check(options: &mut Options, name: &str, errors: &mut Errors) {
    if options.stage == Stage::Sample
        && let Some(kernel) = options.kernel.take()
    {
        errors.push(rule_error(
            kernel.key.span(),
            Rule::KernelOnSampleNode,
            &[("node", name)],
        ));
    }
}
