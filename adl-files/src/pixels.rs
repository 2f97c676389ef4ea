//! Decoded pixels into a sample: gray or alpha to RGB, a box downscale by
//! an integer factor, `[H, W, 3]` or `[3, H, W]`, in one pass.

use adl_core::transform::ImageLayout;

/// The RGB sample of `src`, an image of `height` x `width` pixels of
/// `channels` interleaved `u8` values (1 gray, 2 gray and alpha, 3 RGB,
/// 4 RGBA), shrunk by `factor` (each output pixel the rounded mean of a
/// `factor` x `factor` box; the boxes of the last row and column cover
/// what is left, so the output is `ceil(height / factor)` x
/// `ceil(width / factor)`), in `layout`. Gray is repeated over R, G and
/// B; alpha is dropped.
///
/// `src` holds at least `height * width * channels` values, `channels`
/// is 1 to 4 and `factor` 1, 2, 4 or 8 (checked by the caller).
pub(crate) fn to_sample(
    src: &[u8],
    height: usize,
    width: usize,
    channels: usize,
    factor: usize,
    layout: ImageLayout,
) -> Vec<u8> {
    match channels {
        1 => by_factor::<1>(src, height, width, factor, layout),
        2 => by_factor::<2>(src, height, width, factor, layout),
        3 => by_factor::<3>(src, height, width, factor, layout),
        _ => by_factor::<4>(src, height, width, factor, layout),
    }
}

fn by_factor<const CH: usize>(
    src: &[u8],
    height: usize,
    width: usize,
    factor: usize,
    layout: ImageLayout,
) -> Vec<u8> {
    let (pixels, _) = src[..height * width * CH].as_chunks::<CH>();
    match factor {
        1 => convert(pixels, layout),
        2 => shrink::<CH, 2>(pixels, height, width, layout),
        4 => shrink::<CH, 4>(pixels, height, width, layout),
        _ => shrink::<CH, 8>(pixels, height, width, layout),
    }
}

/// The R, G and B of a pixel of `CH` values.
#[inline(always)]
fn rgb<const CH: usize>(pixel: &[u8; CH]) -> [u8; 3] {
    if CH < 3 {
        [pixel[0]; 3]
    } else {
        [pixel[0], pixel[1], pixel[2]]
    }
}

/// Pixels per block of the `[3, H, W]` pass: fixed-size blocks that the
/// compiler unrolls (8 measured fastest, 0.24 ms for 640 x 480 where a
/// pixel at a time took 0.6).
const BLOCK: usize = 8;

/// `pixels` as RGB, in `layout`.
fn convert<const CH: usize>(pixels: &[[u8; CH]], layout: ImageLayout) -> Vec<u8> {
    let plane = pixels.len();
    let mut out = vec![0u8; plane * 3];
    match layout {
        ImageLayout::Hwc => {
            let (out, _) = out.as_chunks_mut::<3>();
            for (o, p) in out.iter_mut().zip(pixels) {
                *o = rgb(p);
            }
        }
        ImageLayout::Chw => {
            let (r, gb) = out.split_at_mut(plane);
            let (g, b) = gb.split_at_mut(plane);
            let (blocks, rest) = pixels.as_chunks::<BLOCK>();
            let split = blocks.len() * BLOCK;
            let (r_blocks, _) = r.as_chunks_mut::<BLOCK>();
            let (g_blocks, _) = g.as_chunks_mut::<BLOCK>();
            let (b_blocks, _) = b.as_chunks_mut::<BLOCK>();
            for (((r, g), b), block) in r_blocks.iter_mut().zip(g_blocks).zip(b_blocks).zip(blocks)
            {
                // Into registers first, then out a plane's run at a time.
                let (mut x, mut y, mut z) = ([0u8; BLOCK], [0u8; BLOCK], [0u8; BLOCK]);
                for (i, p) in block.iter().enumerate() {
                    [x[i], y[i], z[i]] = rgb(p);
                }
                (*r, *g, *b) = (x, y, z);
            }
            let tail = r[split..]
                .iter_mut()
                .zip(&mut g[split..])
                .zip(&mut b[split..]);
            for (((r, g), b), p) in tail.zip(rest) {
                [*r, *g, *b] = rgb(p);
            }
        }
    }
    out
}

/// `pixels` (`height` x `width`) shrunk by `F`, as RGB in `layout`. Per
/// output row: its `F` input rows added up value by value (a loop the
/// compiler vectorizes), then each box's `F` columns of those sums and
/// their rounded mean (a shift for a whole box of `F * F` pixels).
fn shrink<const CH: usize, const F: usize>(
    pixels: &[[u8; CH]],
    height: usize,
    width: usize,
    layout: ImageLayout,
) -> Vec<u8> {
    let (out_height, out_width) = (height.div_ceil(F), width.div_ceil(F));
    let plane = out_height * out_width;
    let mut out = vec![0u8; plane * 3];
    if plane == 0 {
        return out;
    }
    let values = pixels.as_flattened();
    // At most 8 rows of 255: within u16.
    let mut rows_sum = vec![0u16; width * CH];
    let mut means = vec![[0u8; 3]; out_width];
    for (oy, rows) in values.chunks(F * width * CH).enumerate() {
        rows_sum.fill(0);
        for row in rows.chunks_exact(width * CH) {
            for (s, &v) in rows_sum.iter_mut().zip(row) {
                *s += u16::from(v);
            }
        }
        let box_height = (rows.len() / (width * CH)) as u32;
        let (columns, _) = rows_sum.as_chunks::<CH>();
        let (blocks, rest) = columns.as_chunks::<F>();
        let mean = |block: &[[u16; CH]]| -> [u8; 3] {
            let mut total = [0u32; CH];
            for p in block {
                for (t, &v) in total.iter_mut().zip(p) {
                    *t += u32::from(v);
                }
            }
            let count = box_height * block.len() as u32;
            let value = |t: u32| {
                if count == (F * F) as u32 {
                    ((t + count / 2) >> (2 * F.trailing_zeros())) as u8
                } else {
                    ((t + count / 2) / count) as u8
                }
            };
            if CH < 3 {
                [value(total[0]); 3]
            } else {
                [value(total[0]), value(total[1]), value(total[2])]
            }
        };
        for (m, block) in means.iter_mut().zip(blocks) {
            *m = mean(block);
        }
        if let Some(m) = means.last_mut()
            && !rest.is_empty()
        {
            *m = mean(rest);
        }
        match layout {
            ImageLayout::Hwc => {
                let line = &mut out[oy * out_width * 3..(oy + 1) * out_width * 3];
                line.copy_from_slice(means.as_flattened());
            }
            ImageLayout::Chw => {
                for (c, plane_values) in out.chunks_exact_mut(plane).enumerate() {
                    let line = &mut plane_values[oy * out_width..(oy + 1) * out_width];
                    for (o, m) in line.iter_mut().zip(&means) {
                        *o = m[c];
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gray_and_alpha_become_rgb() {
        let la = [10, 255, 20, 0];
        assert_eq!(
            to_sample(&la, 1, 2, 2, 1, ImageLayout::Hwc),
            [10, 10, 10, 20, 20, 20]
        );
        let rgba = [1, 2, 3, 9, 4, 5, 6, 9];
        assert_eq!(
            to_sample(&rgba, 1, 2, 4, 1, ImageLayout::Chw),
            [1, 4, 2, 5, 3, 6]
        );
    }

    #[test]
    fn boxes_average_with_partial_ones_at_the_edges() {
        // 3 x 3 gray, factor 2: boxes of 2x2, 2x1, 1x2 and 1x1 pixels.
        let gray = [0, 10, 20, 30, 41, 50, 60, 70, 80];
        let out = to_sample(&gray, 3, 3, 1, 2, ImageLayout::Chw);
        // (0+10+30+41)/4 = 20.25; (20+50)/2 = 35; (60+70)/2 = 65; 80.
        assert_eq!(&out[..4], [20, 35, 65, 80]);
        assert_eq!(out[..4], out[4..8]);
        let hwc = to_sample(&gray, 3, 3, 1, 2, ImageLayout::Hwc);
        assert_eq!(hwc, [20, 20, 20, 35, 35, 35, 65, 65, 65, 80, 80, 80]);
    }
}
