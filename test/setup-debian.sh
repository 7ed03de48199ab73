#!/usr/bin/env bash
# Installs (as root, with apt) everything the build, the tests and the corpus need on a fresh
# Debian 12 machine. Idempotent.
set -euo pipefail
if [ "$(id -u)" -ne 0 ]; then echo "setup-debian.sh: run as root (apt-get install)"; exit 2; fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends \
  cmake ninja-build g++ make python3 python3-jsonschema clang-format-22 clang-tidy-22 git \
  llvm-22 llvm-22-dev liblld-22-dev lld-22 clang-22 clang-tools-22 \
  libmsgpack-cxx-dev libcxxopts-dev nlohmann-json3-dev libgtest-dev libcurl4-openssl-dev \
  bats bats-assert bats-support \
  rocm-device-libs libamdhip64-dev \
  librocsparse0 librocrand1 libhsa-runtime64-1 \
  slurmctld slurmd slurm-client munge chromium > /dev/null
