#!/bin/bash
# The device checks of docs/performance.md's "On the H200" (issue 44, the
# brief's W2 runs), in one go on a GPU machine with no Rust toolchain.
#
# Prepared here, in the repo's root, into `.gpu/` (ignored through
# .git/info/exclude), then carried with target/release/adl-bench:
#   cargo build --release -p adl-bench
#   mkdir -p .gpu/lib .gpu/whl
#   cp -L /lib/x86_64-linux-gnu/{libOpenCL.so.1,libjpeg.so.62,libturbojpeg.so.0} .gpu/lib/
#   cp -L "$(gcc -print-file-name=libgomp.so.1)" .gpu/lib/
#   gcc -O3 -march=x86-64-v3 -ffp-contract=off -fopenmp bench/peer/limit_c.c -o .gpu/limit_c_v3
#   maturin build --release --auditwheel skip -m adl-python/Cargo.toml -o .gpu/whl
#   maturin build --release --auditwheel skip -m bench/python/Cargo.toml -o .gpu/whl
# There: bash bench/device/h200.sh (its output also in $OUT/log). The adl
# wheel links the system's FFmpeg 5 (adl-python/README.md): without it
# there, the W6 runs through adl fail to import adl.

exec > >(tee "${OUT:-/tmp}/log") 2>&1
export PYTHONUNBUFFERED=1
R=$PWD
t() { local s=$1; shift; echo "== $*"; timeout "$s" "$@"; echo "== rc $? ($SECONDS s)"; }
nvidia-smi -L; nproc; lscpu | grep -E 'Model name|^CPU\(s\)'
export LD_LIBRARY_PATH=$R/.gpu/lib
N=$(ls /usr/local/nvidia/lib64/libnvidia-opencl.so.1 /usr/local/nvidia/lib/libnvidia-opencl.so.1 /usr/lib/x86_64-linux-gnu/libnvidia-opencl.so.1 2>/dev/null | head -1)
[ -z "$N" ] && N=$(find /usr/local/nvidia /usr/lib /usr/lib64 -name 'libnvidia-opencl.so*' 2>/dev/null | head -1)
echo "NVIDIA OpenCL: ${N:-none}"; ls /etc/OpenCL/vendors 2>/dev/null
mkdir -p /tmp/icd && echo "$N" > /tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
B=$R/target/release/adl-bench
t 120 $B --workload w2 --workers 2 --verify
t 60 $B --workload w2 --stage batch --batches 300
t 60 $B --workload w2 --workers 2 --device rust
t 60 $B --workload w2 --workers 16
t 60 $B --workload w2 --workers 16 --device rust
t 60 $B --workload w1 --workers 2
t 60 $B --workload w1 --workers 16
for n in 2 16; do OMP_NUM_THREADS=$n t 60 .gpu/limit_c_v3; done
if command -v gcc >/dev/null; then
  gcc -O3 -march=native -ffp-contract=off -fopenmp bench/peer/limit_c.c -o /tmp/limit_c &&
  for n in 2 16; do OMP_NUM_THREADS=$n t 60 /tmp/limit_c; done
fi
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .gpu/whl/*.whl && export PYTHONPATH=/tmp/site
python3 -c "import adl, adl_bench; print(adl.BUILD, adl_bench.BUILD)"
for w in 2 16; do t 60 python3 bench/python/bench_w2.py --workers $w; done
cd bench/peer
t 60 python3 w6.py --limit 2
t 60 python3 w6.py --limit 16
t 90 python3 peers.py --peer adl --workload w6 --workers 2 --mode process
t 90 python3 peers.py --peer adl --workload w6 --workers 15 --mode process
t 90 python3 peers.py --peer torch --workload w6 --workers 15 --mode process
echo "total $SECONDS s"
