//! [`CropDecoder`]: a random resized crop of a frame, decoding only the
//! crop.

use adl_core::description::{Node, NodeInfo, SampleNode, Stage, Takes};
use adl_core::transform::ImageLayout;
use adl_core::{Result, Transform};
use adl_exec::{Context, NodeId, Sequential};
use adl_ops::image::{RandomResizedCrop, Region, resized_crop};
use ndarray::Array3;

use crate::encoded::EncodedImage;

/// torchvision's `RandomResizedCrop` on a frame still in its file
/// ([`EncodedImage`], from [`Images::encoded`](crate::Images::encoded)),
/// decoding only the crop, as DALI's `decoders.image_random_crop` does:
/// the region is drawn as [`RandomResizedCrop`] draws it (the same region
/// for the same seed, epoch, sample and node), then the JPEG is decoded
/// in part by libjpeg-turbo (feature `libjpeg-turbo`):
///
/// - the rows above the crop are skipped (their entropy data read, no
///   pixel made), the rows below it not read at all, the columns beside
///   it not made (libjpeg's `jpeg_skip_scanlines`, `jpeg_crop_scanline`);
/// - **scaled**, where the crop is at least twice the output size on both
///   sides: decoded at 1/2, 1/4 or 1/8 (the largest that keeps it at least
///   the output size) in the DCT domain, which makes a quarter (or less)
///   of the pixels, then resized from the scaled crop with its exact edges
///   ([`resized_area`](adl_ops::image::resized_area)).
///
/// **Pixels.** Unscaled, the crop's pixels are those of the whole frame
/// decoded by libjpeg-turbo (tested), so the output equals
/// [`RandomResizedCrop`] on [`Images`](crate::Images)' frame.
/// Scaled, libjpeg's reduced IDCT stands in for the filter's first
/// reduction: the output differs from decode-then-resize by a few values
/// (docs/performance.md gives its PSNR against Pillow's resize of the
/// whole decode). [`exact`](CropDecoder::exact) turns scaling off.
///
/// **What is decoded whole.** A PNG; a JPEG without the feature
/// `libjpeg-turbo` (zune-jpeg decodes whole frames); a JPEG that
/// libjpeg-turbo cannot decode cleanly in part (a CMYK one, a damaged
/// one, which then fails as [`Images`](crate::Images) fails on it). A
/// strict sensor's JPEG must reach its end-of-image marker, as when it is
/// decoded whole; damage in the entropy data below the crop is not seen,
/// as it is not decoded.
///
/// A frame that does not decode is an [`Error::Source`](adl_core::Error::Source) naming its file,
/// the sensor and the sample.
///
/// ```
/// use adl::Sensor;
/// use adl::exec::Sequential;
/// use adl::files::{CropDecoder, Images};
/// use adl::transform::RandomResizedCrop;
/// use adl::Transform;
///
/// # let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
/// let camera = Images::in_folder(data.join("camera"))?;
/// let crop = RandomResizedCrop::new(8);
/// let at = Sequential::new().seeded(7, 0).at(3);
///
/// let decoded = crop.apply_in(&at, camera.get(3)?)?;
/// let files = camera.encoded();
/// let in_part = CropDecoder::new(crop).exact().apply_in(&at, files.get(3)?)?;
/// assert_eq!(in_part, decoded);
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CropDecoder {
    crop: RandomResizedCrop,
    scaled: bool,
}

/// The decode-time scales, largest first.
const SCALES: [usize; 3] = [8, 4, 2];

impl CropDecoder {
    /// `crop` of frames decoded in part, scaled where the crop allows.
    pub fn new(crop: RandomResizedCrop) -> Self {
        CropDecoder { crop, scaled: true }
    }

    /// Never scaled: the output equals [`RandomResizedCrop`] on the frame
    /// decoded whole.
    pub fn exact(self) -> Self {
        CropDecoder {
            scaled: false,
            ..self
        }
    }

    /// The crop it makes.
    pub fn crop(&self) -> &RandomResizedCrop {
        &self.crop
    }

    /// The scale `region` is decoded at: `1 / factor`, the largest factor
    /// (8, 4, 2) that leaves the region at least the output size on both
    /// sides, else 1; 1 when [`exact`](CropDecoder::exact).
    pub fn scale_for(&self, region: Region) -> usize {
        let (height, width) = self.crop.size();
        if !self.scaled {
            return 1;
        }
        SCALES
            .into_iter()
            .find(|&f| region.height >= f * height && region.width >= f * width)
            .unwrap_or(1)
    }

    /// `region` of `frame` (in the frame's pixels), decoded (in part where
    /// it can be) and resized to the crop's size, in its layout.
    pub fn decode(&self, frame: &EncodedImage, region: Region) -> Result<Array3<u8>> {
        self.crop.check()?;
        self.decode_checked(frame, region)
    }

    /// [`decode`](CropDecoder::decode), the crop's parameters checked
    /// already.
    fn decode_checked(&self, frame: &EncodedImage, region: Region) -> Result<Array3<u8>> {
        let (rows, columns) = frame.size();
        if !region.fits(rows, columns) {
            return Err(frame.error(format!(
                "the crop {region:?} is empty or outside its {rows} x {columns} pixels"
            )));
        }
        let (height, width) = self.crop.size();
        let hwc = match self.in_part(frame, region)? {
            Some(image) => image,
            None => resized_crop(
                frame.decode_full()?.view(),
                ImageLayout::Hwc,
                region,
                height,
                width,
            )?,
        };
        Ok(match self.crop.image_layout() {
            ImageLayout::Hwc => hwc,
            ImageLayout::Chw => hwc
                .permuted_axes([2, 0, 1])
                .as_standard_layout()
                .into_owned(),
        })
    }

    /// `region` decoded in part by libjpeg-turbo and resized (`[H, W,
    /// 3]`), or `None` where the frame is to be decoded whole.
    #[cfg(feature = "libjpeg-turbo")]
    fn in_part(&self, frame: &EncodedImage, region: Region) -> Result<Option<Array3<u8>>> {
        use adl_ops::image::{Area, resized_area};
        if !crate::decode::decodes_in_part(frame.bytes(), frame.strict()) {
            return Ok(None);
        }
        let (height, width) = self.crop.size();
        let factor = self.scale_for(region);
        let area = Area::scaled(region, factor as f64);
        // The scaled frame's pixels the area touches (libjpeg's scaled
        // size is ceil(side / factor), so they lie within it).
        let pixels = area.pixels();
        let decoded = match crate::jpeg_region::decode_region(
            frame.bytes(),
            frame.size(),
            factor,
            pixels,
            frame.strict(),
        ) {
            Ok(decoded) => decoded,
            // A frame libjpeg-turbo cannot decode (cleanly) in part, or
            // of another size than its sensor's, is decoded whole, whose
            // verdict stands.
            Err(_) => return Ok(None),
        };
        // The area within what was decoded: the region's rows, and the
        // columns around its own.
        let within = Area {
            top: area.top - pixels.top as f64,
            left: area.left - decoded.left as f64,
            ..area
        };
        let decoded = Array3::from_shape_vec((pixels.height, decoded.width, 3), decoded.pixels)
            .map_err(|e| adl_core::Error::internal("CropDecoder", e))?;
        resized_area(decoded.view(), ImageLayout::Hwc, within, height, width).map(Some)
    }

    /// Without libjpeg-turbo every frame is decoded whole.
    #[cfg(not(feature = "libjpeg-turbo"))]
    fn in_part(&self, _frame: &EncodedImage, _region: Region) -> Result<Option<Array3<u8>>> {
        Ok(None)
    }
}

impl Transform<EncodedImage> for CropDecoder {
    type Output = Array3<u8>;

    /// With the generator of seed 0, epoch 0, sample 0.
    fn apply(&self, input: EncodedImage) -> Result<Array3<u8>> {
        self.apply_in(&Sequential::new(), input)
    }

    fn apply_in(&self, cx: &dyn Context, input: EncodedImage) -> Result<Array3<u8>> {
        self.crop.check()?;
        let (height, width) = input.size();
        if height == 0 || width == 0 {
            return Err(input.error("an empty frame (0 pixels)"));
        }
        let region = self.crop.draw(height, width, &mut cx.rng(NodeId(0)));
        self.decode_checked(&input, region)
    }
}

impl Node for CropDecoder {
    type Input = EncodedImage;
    type Output = Array3<u8>;

    fn info(&self) -> NodeInfo {
        let (height, width) = self.crop.size();
        NodeInfo::new("crop_decoder", Stage::Sample)
            .typed::<EncodedImage, Array3<u8>>()
            .with_doc(format!(
                "Decode a random crop of a frame, only the crop{}, resized to {height} x {width} (built-in).",
                if self.scaled {
                    ", at a reduced scale where it is twice the output"
                } else {
                    ""
                }
            ))
    }
}

#[diagnostic::do_not_recommend]
impl SampleNode for CropDecoder {
    type Node = Self;
}
#[diagnostic::do_not_recommend]
impl Takes<EncodedImage> for CropDecoder {}
