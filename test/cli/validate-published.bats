#!/usr/bin/env bats
# bench/validate_published.py (issue 38): the table of published whole-kernel times against
# kernel-time's model. AITer is not reachable here: each test makes its own git directory with a
# code object in it, and a fake kernel-time (a script printing a report whose figures the test
# chooses) where exact ratios are asserted; one test runs the real kernel-time on a tiny kernel.

load test_helper

VP() { python3 "$ASMEVO_SOURCE_DIR/bench/validate_published.py" "$@"; }

# make_aiter: a git directory "aiter" whose one commit holds hsa/gfx942/t/k.co (a tiny gfx942
# kernel `k`); sets COMMIT and BLOB.
make_aiter() {
  tiny_kernel gfx942 1 4 > k.s <<'BODY'
	s_endpgm
BODY
  mkdir -p aiter/hsa/gfx942/t
  assemble k.s aiter/hsa/gfx942/t/k.co gfx942
  rm -f aiter/hsa/gfx942/t/k.co.o k.s
  git -C aiter init -q --template=  # no sample hooks: a small tree to snapshot
  git -C aiter add hsa
  git -C aiter -c user.name=t -c user.email=t@t commit -qm k
  COMMIT=$(git -C aiter rev-parse HEAD)
  BLOB=$(git -C aiter rev-parse HEAD:hsa/gfx942/t/k.co)
}

# fake_kt: ./kt, a kernel-time that prints a report with the microseconds its spec's comment
# asks for ("fake us=12"; "fake fail", "fake decode": exit 3); its parameter file gives a
# 4200-clock launch overhead at 2100 MHz (2 us). Each call appends its arguments after the spec
# (the spec's file name first) to calls.log.
fake_kt() {
  cat > params.json <<'JSON'
{"figures": {"launch_overhead_clk": {"value": 4200, "unit": "clk"}}}
JSON
  cat > kt <<'PY'
#!/usr/bin/env python3
import json, os, sys
at = sys.argv.index("--spec") + 1
spec = json.load(open(sys.argv[at]))
with open("calls.log", "a") as log:
    log.write(" ".join([os.path.basename(sys.argv[at])] + sys.argv[at + 1:]) + "\n")
kv = dict(w.split("=") for w in spec["comment"].split()[1:] if "=" in w)
if "decode" in spec["comment"]:
    print(json.dumps({"outcome": "runtime_error", "exit_code": 3,
                      "message": "K0: timing model: k.co: no instruction decodes at address 0x10"}))
    sys.exit(3)
if "fail" in spec["comment"]:
    print(json.dumps({"outcome": "runtime_error", "exit_code": 3,
                      "message": "K0: unsupported instruction v_fake at kernel+0x10"}))
    sys.exit(3)
us = float(kv["us"])
print(json.dumps({"outcome": "ok", "exit_code": 0, "message": "ok",
                  "inputs": [{"role": "params", "path": os.path.abspath("params.json"),
                              "sha256": "ab" * 32}],
                  "body": {"params": os.path.abspath("params.json"),
                           "kernels": [{"cycles": us * 2100, "microseconds": us}]}}))
PY
  chmod +x kt
}

HEAD='id	gpu	target	family	co	commit	blob	kernel	shape	published	unit	flop	basis	use	note	source'

# row ID GPU PUBLISHED UNIT FLOP BASIS USE: one line of a table for the tiny kernel.
row() {
  printf '%s\t%s\tgfx942\tt\thsa/gfx942/t/k.co\t%s\t%s\tk\tn=1\t%s\t%s\t%s\t%s\t%s\t-\thttps://example.org/%s\n' \
    "$1" "$2" "$COMMIT" "$BLOB" "$3" "$4" "$5" "$6" "$7" "$1"
}

# spec ID COMMENT: specs/ID.json, the tiny kernel's launch (the fake reads COMMENT).
spec() {
  mkdir -p specs
  printf '{"comment": "%s", "kernel": "k", "grid": [1, 1, 1], "block": [64, 1, 1], "args": []}\n' \
    "$2" > "specs/$1.json"
}

fake_table() {
  make_aiter
  fake_kt
  { echo "# a comment line"
    echo "$HEAD"
    row a GPU-X 10 us - event table
    row b GPU-X 8 us - profiler table
    row c GPU-X 0.02 TFLOPS 400000 profiler quick
    row d GPU-Y 5 us - event table
    row e GPU-X 7 us - event table
    row f GPU-X 9 us - event no
    row g GPU-Y 3 us - event costly; } > t.tsv
  spec a "fake us=12"
  spec b "fake us=12"
  spec c "fake us=14"
  spec d "fake us=5"
  spec e "fake fail"
}

@test "validate_published: published against modeled per row, geomean and share within 25% per GPU" {
  fake_table
  run --separate-stderr VP aiter --table t.tsv --specs specs --kernel-time ./kt --threads 1
  assert_success
  # event: modeled as it is (12 / 10); profiler: less the 2 us launch overhead ((12 - 2) / 8,
  # (14 - 2) / 20 with 20 us = 4e5 FLOP / 0.02 TFLOPS).
  assert_line --regexp '^a +GPU-X +n=1 +event +10\.0 +12\.0 +2\.00 +12\.0 +1\.20 +yes +[0-9]+$'
  assert_line --regexp '^b +GPU-X +n=1 +profiler +8\.0 +12\.0 +2\.00 +10\.0 +1\.25 +yes +[0-9]+$'
  assert_line --regexp '^c +GPU-X +n=1 +profiler +20\.0 +14\.0 +2\.00 +12\.0 +0\.60 +no +[0-9]+$'
  assert_line --regexp '^d +GPU-Y +n=1 +event +5\.0 +5\.0 +2\.00 +5\.0 +1\.00 +yes +[0-9]+$'
  # (1.2 x 1.25 x 0.6)^(1/3) = 0.9655; a GPU's rows only: GPU-Y is not mixed into GPU-X.
  assert_line 'GPU-X       3     0.97    2/3   67%   0.60   1.25'
  assert_line 'GPU-Y       1     1.00    1/1  100%   1.00   1.00'
  assert_line 'per GPU and family:'
  assert_line 'GPU-X    t                       3     0.97    2/3   67%   0.60   1.25'
  assert_line 'not modeled (left out of the means):'
  assert_line '  e: kernel-time exited 3: K0: unsupported instruction v_fake at kernel+0x10'
  refute_line --partial 'f  '
  assert_line "not run: 2 rows of rows.tsv (use 'costly' rows run with --all; 'no' rows never: see their note)"
}

@test "validate_published: --agreement writes the model's agreement per target with the parameter file's sha256" {
  fake_table
  run --separate-stderr VP aiter --table t.tsv --specs specs --kernel-time ./kt --threads 1 \
    --json run.json --agreement agreement.json
  assert_success
  python3 - <<'PY'
import json
a = json.load(open("agreement.json"))
assert a["format"] == "asmevo-model-agreement" and a["format_version"] == 1, a
assert a["within"] == 0.25 and a["target"] == {"geomean_low": 0.85, "geomean_high": 1.15, "share_within": 0.7}, a
t = a["targets"]["gfx942"]
assert t["params_sha256"] == "ab" * 32, t
x, y = t["gpus"]
assert (x["gpu"], x["rows"], x["within"]) == ("GPU-X", 3, 2), x
assert abs(x["geomean"] - (1.2 * 1.25 * 0.6) ** (1 / 3)) < 1e-12, x
assert x["families"] == [{"family": "t", "rows": 3, "geomean": x["geomean"], "within": 2,
                          "share_within": 2 / 3, "min": 0.6, "max": 1.25}], x
assert (y["gpu"], y["rows"], y["within"], y["geomean"]) == ("GPU-Y", 1, 1, 1.0), y
PY
  # the same from the saved run; a run whose rows name no parameter file's sha256 is refused
  run --separate-stderr VP --from-json run.json --agreement again.json
  assert_success
  cmp agreement.json again.json
  python3 -c 'import json; d = json.load(open("run.json")); [r.pop("params_sha256", None) for r in d["rows"]]; json.dump(d, open("old.json", "w"))'
  run --separate-stderr VP --from-json old.json --agreement none.json
  [ "$status" -eq 2 ]
  [ "$stderr" = "validate_published: error: the gfx942 rows were not all modeled with one known parameter file (no params_sha256, or several): run them again" ]
  [ ! -e none.json ]
}

@test "validate_published: --quick, --all, --rows and --gpu select rows; --list runs nothing" {
  fake_table
  run VP --table t.tsv --list
  assert_success
  assert_equal "$(echo "$output" | cut -f1 | tr '\n' ' ')" "a b c d e "
  run VP --table t.tsv --list --quick
  assert_equal "$(echo "$output" | cut -f1 | tr '\n' ' ')" "c "
  run VP --table t.tsv --list --all
  assert_equal "$(echo "$output" | cut -f1 | tr '\n' ' ')" "a b c d e g "
  run VP --table t.tsv --list --rows '^[a-c]$' --gpu GPU-X
  assert_equal "$(echo "$output" | cut -f1 | tr '\n' ' ')" "a b c "
  # c: 4e5 FLOP at 0.02 TFLOPS is 20 us
  run VP --table t.tsv --list --quick
  assert_output "$(printf 'c\tGPU-X\tn=1\t20.00 us\tprofiler\tquick')"
}

@test "validate_published: --json keeps the run, and --from-json prints the same table" {
  fake_table
  run --separate-stderr VP aiter --table t.tsv --specs specs --kernel-time ./kt --json run.json
  assert_success
  local first=$output
  run python3 -c "
import json; d = json.load(open('run.json'))
assert d['format'] == 'asmevo-published-validation' and d['format_version'] == 1
r = {x['id']: x for x in d['rows']}
assert r['b']['compared_us'] == r['b']['modeled_us'] - r['b']['overhead_us'] == 10
assert r['a']['compared_us'] == r['a']['modeled_us'] == 12, r['a']
assert r['b']['overhead_from'] == 'params'
assert 'error' in r['e'] and 'ratio' not in r['e']
g = {x['gpu']: x for x in d['groups']}
assert abs(g['GPU-X']['geomean'] - 0.9 ** (1 / 3)) < 1e-12
assert g['GPU-X']['within'] == 2 and g['GPU-Y']['rows'] == 1
print('ok')"
  assert_output ok
  run --separate-stderr VP --from-json run.json
  assert_success
  assert_equal "$output" "$first"
}

@test "validate_published: the real kernel-time on a tiny kernel (profiler basis: less its launch overhead)" {
  make_aiter
  { echo "$HEAD"; row tiny MI300X 1 us - profiler table; } > t.tsv
  spec tiny "tiny kernel, s_endpgm only"
  run --separate-stderr VP aiter --table t.tsv --specs specs --kernel-time "$ASMEVO_TOOLS/kernel-time" --threads 1 --json run.json
  assert_success
  assert_line --regexp '^tiny +MI300X +n=1 +profiler +1\.0 +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +(yes|no) +[0-9]+$'
  assert_line --regexp '^MI300X +1 +[0-9.]+ +[01]/1 '
  run python3 -c "
import json; d = json.load(open('run.json')); r = d['rows'][0]
assert r['overhead_from'] in ('params', 'report') and r['overhead_us'] > 0, r
assert abs(r['compared_us'] - (r['modeled_us'] - r['overhead_us'])) < 1e-9
assert r['ratio'] == r['compared_us'] / 1.0 and r['sampling']['workgroups'] == 1
print('ok')"
  assert_output ok
}

@test "validate_published: --before puts a saved run's ratios next to this run's, per row and per GPU" {
  fake_table
  run --separate-stderr VP aiter --table t.tsv --specs specs --kernel-time ./kt --json before.json
  assert_success
  spec a "fake us=10"  # the "model" changed: a now 10 / 10
  run --separate-stderr VP aiter --table t.tsv --specs specs --kernel-time ./kt --before before.json
  assert_success
  assert_line --regexp '^a +GPU-X +n=1 +event +10\.0 +10\.0 +2\.00 +10\.0 +1\.00 +yes +[0-9]+ +1\.20$'
  assert_line --regexp '^b +GPU-X .* 1\.25 +yes +[0-9]+ +1\.25$'
  # before (1.2 x 1.25 x 0.6)^(1/3) = 0.97, after (1.0 x 1.25 x 0.6)^(1/3) = 0.91
  assert_line 'gpu      rows before geomean within 25% after geomean within 25%'
  assert_line 'GPU-X       3           0.97        67%          0.91        67%'
  assert_line 'GPU-Y       1           1.00       100%          1.00       100%'
  # the same from two saved runs, running nothing
  run --separate-stderr VP aiter --table t.tsv --specs specs --kernel-time ./kt --json after.json
  local n
  n=$(wc -l < calls.log)
  run --separate-stderr VP --from-json after.json --before before.json
  assert_success
  assert_line 'GPU-X       3           0.97        67%          0.91        67%'
  assert_equal "$(wc -l < calls.log)" "$n"
}

@test "validate_published: --json is written after every row, --resume runs only the rows it lacks" {
  fake_table
  run --separate-stderr VP aiter --table t.tsv --specs specs --kernel-time ./kt --json run.json \
    --rows '^[ab]$'
  assert_success
  # the --timeout default (120) is passed on; 0 passes none
  assert_equal "$(cat calls.log)" "$(printf 'a.json --json --threads %s --timeout 120\nb.json --json --threads %s --timeout 120' "$(nproc)" "$(nproc)")"
  run python3 -c "import json; d = json.load(open('run.json')); print(d['complete'], [r['id'] for r in d['rows']])"
  assert_output "True ['a', 'b']"
  rm calls.log
  run --separate-stderr VP aiter --table t.tsv --specs specs --kernel-time ./kt --json run.json \
    --resume --timeout 0 --threads 1
  assert_success
  assert_equal "$(cat calls.log)" "$(printf 'c.json --json --threads 1\nd.json --json --threads 1\ne.json --json --threads 1')"
  assert_line --regexp '^a +GPU-X .* 1\.20 +yes +[0-9]+$'
  assert_line 'GPU-X       3     0.97    2/3   67%   0.60   1.25'
  # another kernel-time: nothing kept
  cp kt kt2
  rm calls.log
  run --separate-stderr VP aiter --table t.tsv --specs specs --kernel-time ./kt2 --json run.json \
    --resume --rows '^a$'
  assert_equal "$(cut -d' ' -f1 calls.log)" "a.json"
}

@test "validate_published: an object the timing model cannot decode is run once, its other rows not" {
  make_aiter
  fake_kt
  { echo "$HEAD"; row x GPU-X 10 us - event table; row y GPU-X 20 us - event table
    row z GPU-X 10 us - event table; } > t.tsv
  spec x "fake decode"
  spec y "fake decode"
  spec z "fake us=10"
  run --separate-stderr VP aiter --table t.tsv --specs specs --kernel-time ./kt --rows '^[xy]$'
  assert_success
  assert_line '  x: kernel-time exited 3: K0: timing model: k.co: no instruction decodes at address 0x10'
  assert_line '  y: not run: the same object failed on x: kernel-time exited 3: K0: timing model: k.co: no instruction decodes at address 0x10'
  assert_equal "$(cut -d' ' -f1 calls.log)" "x.json"
  # another failure (fail) does not stop the object's other rows
  spec x "fake fail"
  rm calls.log
  run --separate-stderr VP aiter --table t.tsv --specs specs --kernel-time ./kt --rows '^[xz]$'
  assert_success
  assert_equal "$(cut -d' ' -f1 calls.log | tr '\n' ' ')" "x.json z.json "
}

@test "validate_published: bad tables, a missing object or commit, a wrong blob are input errors (exit 2), nothing written" {
  fake_table
  cp t.tsv good.tsv
  sed 's/\tevent\ttable\t/\tevent\tmaybe\t/' good.tsv > t1.tsv
  sed '3s/\tevent\t/\thipevent\t/' good.tsv > t2.tsv
  sed '3s/\t10\tus\t/\t-10\tus\t/' good.tsv > t3.tsv
  sed '3s/\t10\tus\t/\t10\tms\t/' good.tsv > t4.tsv
  sed '5s/\t400000\t/\tnan\t/' good.tsv > t5.tsv
  sed '3s/\t-\thttps/\thttps/' good.tsv > t6.tsv
  sed '2s/\tnote\t/\tremark\t/' good.tsv > t7.tsv
  { cat good.tsv; row a GPU-Z 1 us - event table; } > t8.tsv
  sed "3s/$COMMIT/0123456789abcdef0123456789abcdef01234567/" good.tsv > t9.tsv
  sed "3s/$BLOB/$COMMIT/" good.tsv > t10.tsv
  echo '{"format": "asmevo-report"}' > other.json
  snapshot_tree
  bad() { # bad EXPECTED-STDERR ARGS...: exit 2, that message, nothing written or changed
    local want=$1; shift
    run --separate-stderr VP "$@" --json run.json
    assert_failure 2
    assert_equal "$stderr" "$want"
    assert_output ''
    assert_tree_unchanged
  }
  local E='validate_published: error:' K=(--specs specs --kernel-time ./kt)
  bad "$E 't1.tsv':3: use 'maybe' is not one of quick, table, costly, no" aiter --table t1.tsv "${K[@]}"
  bad "$E 't2.tsv':3: basis 'hipevent' is not one of event, profiler" aiter --table t2.tsv "${K[@]}"
  bad "$E 't3.tsv':3: published '-10' is not a positive number" aiter --table t3.tsv "${K[@]}"
  bad "$E 't4.tsv':3: unit 'ms' is not us or TFLOPS" aiter --table t4.tsv "${K[@]}"
  bad "$E 't5.tsv':5: flop 'nan' is not a positive number (unit TFLOPS)" aiter --table t5.tsv "${K[@]}"
  bad "$E 't6.tsv':3: 15 cells, the header has 16" aiter --table t6.tsv "${K[@]}"
  bad "$E 't7.tsv': no column 'note' in the header" aiter --table t7.tsv "${K[@]}"
  bad "$E 't8.tsv':10: id 'a' appears twice" aiter --table t8.tsv "${K[@]}"
  bad "$E 'nosuch.tsv': No such file or directory" aiter --table nosuch.tsv "${K[@]}"
  bad "$E 'aiter': no 0123456789abcdef0123456789abcdef01234567:hsa/gfx942/t/k.co (row a; an AITer git directory with that commit is needed)" \
    aiter --table t9.tsv "${K[@]}" --rows '^a$'
  bad "$E 'aiter': $COMMIT:hsa/gfx942/t/k.co is blob $BLOB, rows.tsv says $COMMIT (row a)" \
    aiter --table t10.tsv "${K[@]}" --rows '^a$'
  bad "$E './nokt': not an executable (build kernel-time, or --kernel-time PATH)" \
    aiter --table good.tsv --specs specs --kernel-time ./nokt
  bad "$E an AITer git directory is needed (or --from-json/--list)" --table good.tsv "${K[@]}"
  bad "$E no row selected" aiter --table good.tsv "${K[@]}" --rows nothing-matches
  bad "$E --rows '(': missing ), unterminated subpattern at position 0" \
    aiter --table good.tsv "${K[@]}" --rows '('
  bad "$E --params 'MI300X': GPU=FILE expected" aiter --table good.tsv "${K[@]}" --params MI300X
  bad "$E 'other.json': not an asmevo-published-validation file" --from-json other.json
  bad "$E 'other.json': not an asmevo-published-validation file" aiter --table good.tsv \
    "${K[@]}" --before other.json
  echo '{' > broken.json
  snapshot_tree
  bad "$E 'broken.json': not JSON (Expecting property name enclosed in double quotes: line 2 column 1 (char 2))" \
    --from-json broken.json
  run --separate-stderr VP aiter --table good.tsv "${K[@]}" --resume
  assert_failure 2
  assert_equal "$stderr" "$E --resume needs --json FILE (the run to go on with)"
  assert_tree_unchanged
}
