/*
 * A region of a JPEG decoded by libjpeg (libjpeg-turbo's libjpeg API),
 * optionally at a decode-time (DCT-domain) scale: the rows above the region
 * are skipped (jpeg_skip_scanlines: entropy-decoded, not reconstructed), the
 * columns outside it are not reconstructed (jpeg_crop_scanline), and the
 * rows below it are not decoded at all.
 *
 * libjpeg reports a fatal error by calling error_exit, which by default
 * ends the process: here it long-jumps back into adl_jpeg_region (no Rust
 * frame lies between the setjmp and the longjmp; every buffer is libjpeg's
 * own pool, freed by jpeg_destroy_decompress). A warning (corrupt entropy
 * data, a truncated scan) is an error too where `strict` is set.
 */
#include <setjmp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <jpeglib.h>

struct adl_error_mgr {
  struct jpeg_error_mgr pub;
  jmp_buf jump;
  int strict;
  char *message;
  size_t message_len;
};

static void adl_keep_message(j_common_ptr cinfo) {
  struct adl_error_mgr *err = (struct adl_error_mgr *)cinfo->err;
  char buffer[JMSG_LENGTH_MAX];
  (*cinfo->err->format_message)(cinfo, buffer);
  snprintf(err->message, err->message_len, "%s", buffer);
}

static void adl_error_exit(j_common_ptr cinfo) {
  adl_keep_message(cinfo);
  longjmp(((struct adl_error_mgr *)cinfo->err)->jump, 1);
}

static void adl_emit_message(j_common_ptr cinfo, int level) {
  struct adl_error_mgr *err = (struct adl_error_mgr *)cinfo->err;
  if (level < 0) {
    cinfo->err->num_warnings++;
    if (err->strict) {
      adl_keep_message(cinfo);
      longjmp(err->jump, 1);
    }
  }
}

/*
 * Rows [top, top + height) of the JPEG `data` decoded at the scale
 * 1/`denom` (1, 2, 4 or 8; the region is in the scaled image's pixels) as
 * RGB into `out`, the columns [*out_left, *out_left + *out_width): those of
 * [left, left + width) and `margin` more on each side where the image has
 * them (and more to the left, from the iMCU column boundary libjpeg starts
 * at), `height` rows of `*out_width` pixels of 3 bytes, straight from
 * libjpeg (no copy). `out_len` must hold them: `height` rows of `width + 2
 * * margin + 32` pixels (an iMCU column is at most 32 pixels wide) where
 * the image is that wide, else of the image's scaled width. The full image's size at that scale is written to
 * `*image_height` and `*image_width`.
 *
 * Returns 0; or -1 with libjpeg's reason in `message` (a fatal error, or
 * with `strict` a warning); or -2 where the region is empty or does not lie
 * within the scaled image (its size written all the same) or `out_len`
 * cannot hold the rows; or -3 where the image is not `expect_height` x
 * `expect_width` pixels (checked before any pixel memory is taken).
 */
int adl_jpeg_region(const unsigned char *data, unsigned long len,
                    unsigned expect_height, unsigned expect_width,
                    unsigned denom, unsigned top, unsigned left,
                    unsigned height, unsigned width, unsigned margin,
                    unsigned char *out,
                    size_t out_len, int strict, unsigned *image_height,
                    unsigned *image_width, unsigned *out_left,
                    unsigned *out_width, char *message, size_t message_len) {
  struct jpeg_decompress_struct cinfo;
  struct adl_error_mgr err;
  JDIMENSION xoffset, cropped_width, row;
  JSAMPROW line[1];
  cinfo.err = jpeg_std_error(&err.pub);
  err.pub.error_exit = adl_error_exit;
  err.pub.emit_message = adl_emit_message;
  err.strict = strict;
  err.message = message;
  err.message_len = message_len;
  if (setjmp(err.jump)) {
    jpeg_destroy_decompress(&cinfo);
    return -1;
  }
  jpeg_create_decompress(&cinfo);
  jpeg_mem_src(&cinfo, data, len);
  jpeg_read_header(&cinfo, TRUE);
  if (cinfo.image_height != expect_height || cinfo.image_width != expect_width) {
    *image_height = cinfo.image_height;
    *image_width = cinfo.image_width;
    jpeg_destroy_decompress(&cinfo);
    return -3;
  }
  cinfo.out_color_space = JCS_RGB;
  cinfo.scale_num = 1;
  cinfo.scale_denom = denom;
  jpeg_calc_output_dimensions(&cinfo);
  *image_height = cinfo.output_height;
  *image_width = cinfo.output_width;
  if (height == 0 || width == 0 || top > cinfo.output_height ||
      height > cinfo.output_height - top || left > cinfo.output_width ||
      width > cinfo.output_width - left) {
    jpeg_destroy_decompress(&cinfo);
    return -2;
  }
  /* The columns decoded: the region and `margin` more on each side (where
   * the image has them), from the iMCU column boundary at or before that. */
  xoffset = left > margin ? left - margin : 0;
  cropped_width = left + width + margin < cinfo.output_width
                      ? left + width + margin - xoffset
                      : cinfo.output_width - xoffset;
  jpeg_start_decompress(&cinfo);
  if (cropped_width < cinfo.output_width)
    jpeg_crop_scanline(&cinfo, &xoffset, &cropped_width);
  if ((size_t)height * cropped_width * 3 > out_len) {
    jpeg_destroy_decompress(&cinfo);
    return -2;
  }
  *out_left = xoffset;
  *out_width = cropped_width;
  if (top > 0 && jpeg_skip_scanlines(&cinfo, top) != top) {
    snprintf(message, message_len, "the file ends before row %u", top);
    jpeg_destroy_decompress(&cinfo);
    return -1;
  }
  for (row = 0; row < height; row++) {
    line[0] = out + (size_t)row * cropped_width * 3;
    if (jpeg_read_scanlines(&cinfo, line, 1) != 1) {
      snprintf(message, message_len, "the file ends before row %u",
               top + row);
      jpeg_destroy_decompress(&cinfo);
      return -1;
    }
  }
  /* The rows below the region are not decoded. */
  jpeg_abort_decompress(&cinfo);
  jpeg_destroy_decompress(&cinfo);
  return 0;
}
