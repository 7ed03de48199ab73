#!/usr/bin/env bats
# README.md as a new user follows it: every command block runs as printed, in order, from a
# copy of the repository root with only the README's own `export PATH=...build/bin...` putting
# the tools on PATH (build/bin there is the build under test). readme_blocks.py extracts and runs
# the blocks; its markers (<!-- readme-test: skip | exit N | file NAME -->) and the rule that only
# the two set-up blocks are skipped are tested here on small READMEs, including that a broken
# example fails naming its block and command.

load test_helper

blocks() { python3 "$BATS_TEST_DIRNAME/readme_blocks.py" "$@"; }

# repo_copy DIR: the repository's files (no .git, no build trees) with DIR/build/bin the tools
# under test; PATH loses them, as on a fresh machine before the README's export (unless they are
# also installed elsewhere on PATH).
repo_copy() {
  local e build
  build=$(cd "$ASMEVO_TOOLS/.." && pwd)
  mkdir -p "$1/build"
  for e in "$ASMEVO_SOURCE_DIR"/*; do
    [ "$(cd "$e" 2> /dev/null && pwd)" = "$build" ] && continue
    [ -e "$e/CMakeCache.txt" ] && continue
    cp -r "$e" "$1/"
  done
  ln -s "$ASMEVO_TOOLS" "$1/build/bin"
  ln -s "$build/lib" "$1/build/lib" # libasmevo-hip
  PATH=${PATH//"$ASMEVO_TOOLS:"/}
}

# small_readme > README.md: the two set-up blocks, then a block of each kind: two commands (one
# continued on a second line), a JSON file, a fenced sh block using it, an expected failure.
small_readme() {
  cat <<'MD'
# T

<!-- readme-test: skip -->
    bash share/run-example.sh

<!-- readme-test: skip -->
    bash test/run-all.sh

## Files

    echo one > a.txt
    grep -q one \
      a.txt   # a continued command

<!-- readme-test: file b.json -->
```json
{"b": 1}
```

```sh
grep -q '"b": 1' b.json
```

<!-- readme-test: exit 3 -->
    bash -c 'exit 3'
MD
}

@test "every command block of README.md runs as printed, in order" {
  repo_copy repo
  run blocks "$ASMEVO_SOURCE_DIR/README.md" repo
  assert_success
  assert_line --regexp '^README: [0-9]+ blocks, [0-9]+ commands ran as printed \(2 set-up blocks skipped\)$'
  # the examples' own results: the identical patch, the rebuilt edit, the completed spec
  cmp repo/K0.hsaco repo/K2.hsaco
  [ -s repo/K1.hsaco ]
  [ -s repo/out.bin ]
  grep -q '"format": "asmevo-launch-spec"' repo/full.json
}

@test "README.md skips exactly the two set-up blocks" {
  run blocks --list "$ASMEVO_SOURCE_DIR/README.md"
  assert_success
  [ "$(grep -c ': skip: ' <<< "$output")" -eq 2 ]
  assert_line --regexp "^block [0-9]+ \(README.md:[0-9]+, section '[^']+'\): skip: bash share/run-example.sh$"
  assert_line --regexp "^block [0-9]+ \(README.md:[0-9]+, section '[^']+'\): skip: bash test/run-all.sh$"
}

@test "a broken example of README.md fails, naming its block and command" {
  repo_copy repo
  sed 's/--window add_kernel:0x1cc-0x1ec --extract/--window kernel:0x100-0x140 --extract/' \
    "$ASMEVO_SOURCE_DIR/README.md" > repo/README.md
  run blocks repo/README.md repo
  assert_failure 1
  assert_line --regexp "^README: block [0-9]+ \(README.md:[0-9]+, section 'hsaco-patch'\), line [0-9]+: the command exited 2, expected 0: hsaco-patch K0.hsaco --window kernel:0x100-0x140 --extract > w.s$"
  assert_line "hsaco-patch: error: 'K0.hsaco': no kernel or function named 'kernel'"
  [ ! -e repo/K2.hsaco ]
}

@test "the markers: a small README passes, with its data file and an expected failure" {
  small_readme > README.md
  mkdir work
  run blocks README.md work
  assert_success
  assert_line 'README: 4 blocks, 4 commands ran as printed (2 set-up blocks skipped)'
  assert_line '+ README.md:11: echo one > a.txt'
  assert_line '+ README.md:12: grep -q one a.txt   # a continued command'
  assert_line "+ block 4 (README.md:17, section 'Files'): writing b.json"
  assert_line "+ README.md:25: bash -c 'exit 3'"
  [ "$(cat work/b.json)" = '{"b": 1}' ]
}

@test "a failing command stops the run, naming the block, its line and the command" {
  small_readme | sed 's/^    echo one > a.txt$/    false   # a broken example/' > README.md
  mkdir work
  run blocks README.md work
  assert_failure 1
  assert_line "README: block 3 (README.md:11, section 'Files'), line 11: the command exited 1, expected 0: false   # a broken example"
  refute_line --partial '+ README.md:12:'
}

@test "an exit marker whose command succeeds fails; a block of two commands may not carry one" {
  small_readme | sed "s/bash -c 'exit 3'/true/" > README.md
  mkdir work
  run blocks README.md work
  assert_failure 1
  assert_line "README: block 6 (README.md:25, section 'Files'), line 25: the command exited 0, expected 3: true"
  small_readme | sed "s/^    bash -c 'exit 3'$/    true\n&/" > README.md
  run blocks README.md work
  assert_failure 2
  assert_output --partial "README.md:25: block 6 (README.md:25, section 'Files') has an exit marker and 2 commands"
}

# refused SED MESSAGE [--partial]: the small README edited by SED is refused (exit 2) before
# anything runs in work/, with MESSAGE.
refused() {
  small_readme | sed "$1" > README.md
  run blocks README.md work
  assert_failure 2
  if [ "${3:-}" = --partial ]; then assert_output --partial "$2"; else assert_output "$2"; fi
}

@test "a third skip, a set-up command without its skip, a data block without a file are refused before anything runs" {
  mkdir work
  refused 's/^    echo one > a.txt$/<!-- readme-test: skip -->\n&/' "README.md:12: block 3 (README.md:12, section 'Files') is skipped, but only the set-up commands (bash share/run-example.sh; bash test/run-all.sh) may be"
  refused '0,/^<!-- readme-test: skip -->$/s///' "README.md:4: block 1 (README.md:4, section 'T') runs the set-up command 'bash share/run-example.sh' without a skip marker"
  refused 's/^<!-- readme-test: file b.json -->$//' "README.md:17: block 4 (README.md:17, section 'Files') is a \`\`\`json block with no file marker: it would go unchecked"
  refused 's/^{"b": 1}$/{"b": 1/' "README.md:17: block 4 (README.md:17, section 'Files') is not JSON: " --partial
  refused 's/readme-test: file b.json/readme-test: maybe/' "README.md:15: unknown marker 'maybe' (skip, exit N or file NAME)"
  refused 's/^<!-- readme-test: exit 3 -->$/& (it fails)/' "README.md:24: not a marker line: '<!-- readme-test: exit 3 --> (it fails)'"
  refused 's/^    bash -c .exit 3.$/Text./' "README.md:24: the marker 'exit 3' is not right before a block"
  [ -z "$(ls work)" ]
}
