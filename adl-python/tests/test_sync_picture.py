"""trace.draw_sync(): a trace's synchronization drawn as SVG (each
sensor's stamps on one axis, each sample's match as a line, dropped
reference stamps crossed out, gaps shaded), and checked as people see it:
rendered by a real headless browser (Debian's Chromium, which `cargo
xtask test` installs), the screenshot's pixels looked at for the marks."""

import re
import shutil
import subprocess

import numpy as np
import pytest
from PIL import Image

import adl
from adl import generic


class Stamps:
    """A sensor of its timestamps alone."""

    def __init__(self, t):
        self.metadata = type("Metadata", (), {"timestamps": np.asarray(t, dtype=np.float64)})()

    def __getitem__(self, i):
        return float(self.metadata.timestamps[i])

    def __len__(self):
        return len(self.metadata.timestamps)


def trace():
    """A camera at 10 Hz and an IMU at 100 Hz that stops from 0.4 s to
    0.71 s: the camera's frames at 0.5 and 0.6 s find no IMU stamp within
    0.02 s."""
    camera = np.arange(10) / 10
    imu = np.concatenate([np.arange(40) / 100, 0.71 + np.arange(29) / 100])
    return adl.Trace({"camera": Stamps(camera), "imu": Stamps(imu)}, generic.Nearest("camera", tol=0.02),
                     name="drive")


def marks(svg, kind):
    return re.findall(rf'<\w+ class="{kind}"[^>]*>', svg)


def test_the_picture_has_a_mark_for_every_stamp_match_drop_and_gap(tmp_path):
    t = trace()
    path = tmp_path / "sync.svg"
    svg = t.draw_sync(path)
    assert path.read_text() == svg and len(t) == 8
    # The camera: 8 frames read, 2 dropped; the IMU: 8 stamps read, the
    # other 61 not; 8 matches, none beyond the tolerance; one gap.
    assert (len(marks(svg, "stamp")), len(marks(svg, "unread"))) == (16, 2 + 61)
    assert (len(marks(svg, "match")), len(marks(svg, "beyond")), len(marks(svg, "dropped"))) == (8, 0, 2)
    assert len(marks(svg, "gap")) == 1
    assert "camera [5] at 0.5 s: no sample" in svg and "no stamp from 0.39 s to 0.71 s" in svg
    # The same synchronization seen from the IMU, with a tolerance of 1
    # ms: its 61 stamps no sample reads crossed out, and the two matches
    # 10 ms apart (the frames at 0.4 and 0.7 s) beyond the tolerance.
    svg = t.draw_sync(reference="imu", tolerance=0.001)
    assert "imu (reference)" in svg and len(marks(svg, "dropped")) == 61
    assert (len(marks(svg, "match")), len(marks(svg, "beyond"))) == (6, 2)


def test_a_reference_that_is_not_there_is_named():
    with pytest.raises(ValueError, match="no sensor `lidar`.*camera, imu"):
        trace().draw_sync(reference="lidar")


def chromium():
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    assert found, ("no Chromium to render the picture: `cargo xtask test` installs Debian's `chromium`; "
                   "or run `sudo apt-get install chromium`")
    return found


def rendered(path, svg):
    """The SVG at `path` (its text `svg`) as headless Chromium draws it: a
    screenshot of its size, as RGB pixels (ints)."""
    width, height = (int(float(v)) for v in re.search(r'width="([\d.]+)" height="([\d.]+)"', svg).groups())
    shot = path.with_suffix(".png")
    run = subprocess.run([chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                          f"--window-size={width},{height}", f"--screenshot={shot}", path.as_uri()],
                         capture_output=True, text=True, timeout=120)
    assert shot.exists(), run.stderr[-2000:]
    pixels = np.asarray(Image.open(shot).convert("RGB")).astype(int)
    assert pixels.shape[:2] == (height, width)
    return pixels


def test_chromium_draws_the_crosses_the_matches_and_the_gap_where_they_are(tmp_path):
    path = tmp_path / "sync.svg"
    svg = trace().draw_sync(path)
    pixels = rendered(path, svg)
    r, g, b = pixels[..., 0], pixels[..., 1], pixels[..., 2]
    red = (r > 180) & (g < 90) & (b < 90)
    green = (g > r + 30) & (g > b + 30)
    pink = (r > 230) & (g > 180) & (g < 215) & (b > 180) & (b < 215)

    def near(mask, x, y, reach=7):
        return mask[max(0, y - reach):y + reach + 1, max(0, x - reach):x + reach + 1].any()

    # Each cross where the picture says it is, and red nowhere else.
    crosses = re.findall(r'class="dropped" d="M([\d.]+),([\d.]+)', svg)
    assert len(crosses) == 2
    for x0, y0 in crosses:
        assert near(red, round(float(x0)) + 6, round(float(y0)) + 6), (x0, y0)
    ys, xs = np.nonzero(red)
    assert all(any(abs(x - (float(x0) + 6)) <= 8 for x0, _ in crosses) for x in xs)
    # Each match a green line: green at its middle.
    lines = re.findall(r'class="match" x1="([\d.]+)" y1="([\d.]+)" x2="([\d.]+)" y2="([\d.]+)"', svg)
    assert len(lines) == 8
    for x1, y1, x2, y2 in lines:
        assert near(green, round((float(x1) + float(x2)) / 2), round((float(y1) + float(y2)) / 2), 2)
    # The IMU's gap, shaded between its stamps at 0.39 and 0.71 s.
    gap = re.search(r'class="gap" x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)"', svg)
    x, y, w, h = (float(v) for v in gap.groups())
    inside = pink[round(y + 2):round(y + h - 2), round(x + 3):round(x + w - 3)]
    assert inside.mean() > 0.5
    assert not pink[:, :round(x) - 2].any()


def test_an_interpolated_sensor_is_drawn_from_its_stamps_and_its_masks_show(tmp_path):
    camera = np.arange(10) / 10
    imu = Stamps(np.concatenate([np.arange(40) / 100, 0.71 + np.arange(29) / 100]))
    t = adl.Trace({"camera": Stamps(camera), "imu": adl.Interpolated(imu, camera, max_gap=0.05)},
                  generic.Nearest("camera", tol=0.001), name="drive")
    path = tmp_path / "sync.svg"
    svg = t.draw_sync(path)
    # The IMU stops from 0.39 s to 0.71 s, over max_gap: the frames at 0.4,
    # 0.5, 0.6 and 0.7 s are masked; the other six are at an IMU stamp or
    # between two.
    masked = re.findall(r'class="masked" d="M([\d.]+),([\d.]+)', svg)
    assert len(masked) == 4 and "imu masked at 0.5 s" in svg
    lines = marks(svg, "interpolation")
    assert 6 <= len(lines) <= 12 and not marks(svg, "match")
    # The IMU's lane holds its own 69 stamps, not the camera's times.
    assert len(marks(svg, "stamp")) + len(marks(svg, "unread")) == 10 + 69
    # Rendered: orange at each diamond.
    pixels = rendered(path, svg)
    r, g, b = pixels[..., 0], pixels[..., 1], pixels[..., 2]
    orange = (r > 220) & (g > 100) & (g < 160) & (b < 60)
    for x, top in masked:
        x, y = round(float(x)), round(float(top)) + 7
        assert orange[y - 3:y + 4, x - 3:x + 4].any(), (x, y)
