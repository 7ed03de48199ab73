#!/usr/bin/env bash
# workflow-check.sh: Makefile.workflow's checks of its variables, run once when make reads the
# makefile, so that a value that cannot work stops the run before any step: the step that would
# need it may come minutes later (a search's budget is a variable), and some values would write
# outside the run (RUN empty or /) or run the wrong thing (a path with a space is two paths to
# make). It also names the kernels, so that the makefile and its documentation agree on one rule.
#
#   bash workflow-check.sh VAR=VALUE... -- KERNEL...
# VAR: GOALS (make's command goals), RUN, OBJ, SPEC, SPECS, CAPTURES, CAPTURE_WEIGHTS, TIME_SPEC, TOOLS, TEAM, WORKERS, BUDGET,
# TEAM_BUDGET, MAX_CANDIDATES, BACKEND, DRIVER, LLM_URL, LLM_MODEL, LLM_DIALECT, LLM_KEY_ENV,
# INSTALL, INSTALL_DIR. Prints "TEAM WORKERS NAME..." (the numbers normalized, one name per
# kernel) on stdout and exits 0; or prints one "workflow: ..." line per problem on stderr and
# exits 2.
set -uo pipefail
export LC_ALL=C

declare -A V
while [ $# -gt 0 ] && [ "$1" != -- ]; do
  V[${1%%=*}]=${1#*=}
  shift
done
shift
kernels=("$@")
v() { printf '%s' "${V[$1]-}"; }

problems=0
problem() {
  echo "workflow: $*" >&2
  problems=$((problems + 1))
}

# What the goals do: run the steps (any goal but these three), read the run, or neither.
steps=0 uses_run=0
goals=$(v GOALS)
for g in ${goals:-all}; do
  case $g in
  uninstall) ;;
  clean-run | report) uses_run=1 ;;
  *) steps=1 uses_run=1 ;;
  esac
done

# Characters make reads as syntax in a target or prerequisite (whitespace, ':', '#', '%', '=',
# '$', '\'), or the shell in a recipe that passes paths unquoted.
unsafe='[[:space:]]|[]:#%=$\\"'"'"'`;&|<>(){}*?[]'
is_unsafe() { [[ $1 =~ $unsafe ]]; }
unsafe_reason() {
  local c=
  [[ $1 =~ $unsafe ]] && c=${BASH_REMATCH[0]}
  if [[ $c =~ [[:space:]] ]]; then
    echo "make splits paths at spaces"
  else
    echo "make or the shell reads '$c' in it as syntax"
  fi
}

# ---- RUN: a directory of its own for the run ----
run=$(v RUN)
cwd=$(pwd -P)
if [ "$uses_run" = 1 ]; then
  if [ -z "${run//[[:space:]]/}" ]; then
    problem "RUN is empty: give the run directory (RUN=runs, the default); the run would" \
      "write under /"
  elif is_unsafe "$run"; then
    problem "RUN='$run' cannot be used: $(unsafe_reason "$run"); choose another directory"
  else
    real=$(realpath -m -- "$run")
    if [ "$real" = / ]; then
      problem "RUN='$run' is the root directory: give a directory of its own (RUN=runs)"
    elif [ "$real" = "$cwd" ] || [[ $cwd == "$real"/* ]]; then
      problem "RUN='$run' is the directory make runs in ($cwd) or one above it: the run's" \
        "files would mix with yours; give a directory of its own (RUN=runs)"
    elif [ -e "$run" ] && [ ! -d "$run" ]; then
      problem "RUN='$run' is not a directory"
    elif [ -f "$run/summary.json" ] &&
      ! grep -q '"format": *"asmevo-workflow-summary"' "$run/summary.json"; then
      problem "RUN='$run' holds a summary.json that is not a workflow summary: it is not a" \
        "workflow run directory (give a new one)"
    fi
  fi
fi

# clean-run removes RUN: only a directory that holds nothing but a workflow run's files.
if [[ " $goals " == *" clean-run "* ]] && [ "$problems" = 0 ] && [ -d "$run" ]; then
  steps_re='^(k0\.hsaco|k0\.s|(gate|spec|time-spec|baseline|profile|summary|search)\.json(\.tmp)?'
  steps_re+='|search|team|report\.html)$'
  stray=
  for e in "$run"/* "$run"/.[!.]* "$run"/..?*; do
    [ -e "$e" ] || [ -L "$e" ] || continue
    b=${e##*/}
    if [ -d "$e" ] && [ ! -L "$e" ]; then
      for f in "$e"/* "$e"/.[!.]* "$e"/..?*; do
        [ -e "$f" ] || [ -L "$f" ] || continue
        [[ ${f##*/} =~ $steps_re ]] || { stray=$f && break; }
      done
    elif ! [[ $b =~ ^(summary\.json(\.tmp)?|report\.html)$ ]]; then
      stray=$e
    fi
    [ -n "$stray" ] && break
  done
  [ -z "$stray" ] || problem "clean-run: RUN='$run' holds '$stray', which the workflow did not" \
    "write: not removing it (remove the directory yourself if it is yours to remove)"
fi

# ---- the numbers ----
# uint NAME LO HI WHAT: NAME's value is a whole number from LO to HI, else a problem; the number
# without leading zeros (TEAM=01 is one member, as TEAM=1) in $number (LO after a problem).
uint() {
  local x
  x=$(v "$1")
  if [[ $x =~ ^[0-9]{1,9}$ ]] && [ $((10#$x)) -ge "$2" ] && [ $((10#$x)) -le "$3" ]; then
    number=$((10#$x))
  else
    problem "$1 must be $4, not '$x'"
    number=$2
  fi
}
uint TEAM 1 1024 "a whole number of team members from 1 to 1024"
team=$number
uint WORKERS 1 256 "a whole number of workers from 1 to 256"
workers=$number
uint MAX_CANDIDATES 0 999999999 "a whole number of candidates (0: no limit)"
for b in BUDGET TEAM_BUDGET; do
  x=$(v $b)
  [[ $x =~ ^[0-9]*\.?[0-9]+$ && $x =~ [1-9] ]] ||
    problem "$b must be a number of seconds above 0 (as 60 or 2.5), not '$x'"
done

# ---- the search's options ----
case $(v BACKEND) in
emu | hip) ;;
*) problem "BACKEND must be emu or hip, not '$(v BACKEND)'" ;;
esac
driver=$(v DRIVER)
case $driver in
rules | stochastic | llm) ;;
exec:?*) ;;
*) problem "DRIVER must be rules, stochastic, exec:COMMAND or llm, not '$driver'" ;;
esac
if [ "$driver" = llm ]; then
  for x in LLM_URL LLM_MODEL; do
    [ -n "$(v $x)" ] || problem "DRIVER=llm needs $x=... (see README.md: The llm driver)"
  done
  case $(v LLM_DIALECT) in anthropic | openai) ;;
  *) problem "LLM_DIALECT must be anthropic or openai, not '$(v LLM_DIALECT)'" ;;
  esac
  # Never echoed: a key given here by mistake must not land in a terminal's scrollback or a log.
  key=$(v LLM_KEY_ENV)
  [ -z "$key" ] || [[ $key =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] ||
    problem "LLM_KEY_ENV must be the name of the variable that holds the key (as" \
      "ANTHROPIC_API_KEY), not the key itself; its value is not shown"
fi

# ---- install, uninstall ----
if [[ " $goals " == *" install "* ]]; then
  inst=$(v INSTALL)
  not=
  [ -z "$inst" ] || not=" (not '$inst')"
  case $inst in triton:?* | aiter:?* | hip | hip:?*) ;;
  *) problem "install needs INSTALL=triton:DUMP_DIR, aiter:ASM_ROOT or hip[:APP_DIR]$not" ;;
  esac
fi
for g in install uninstall; do
  if [[ " $goals " == *" $g "* ]] && [ -z "$(v INSTALL_DIR)" ]; then
    problem "$g needs INSTALL_DIR=DIR"
  fi
done

# ---- the tools ----
tools=()
[ "$steps" = 1 ] && tools+=(hsaco-recover kernel-diffcheck kernel-time asmevo-agent)
[[ " $goals " == *" report "* ]] && tools+=(asmevo-report)
[[ " $goals " == *" install "* || " $goals " == *" uninstall "* ]] && tools+=(asmevo-install)
tdir=$(v TOOLS)
if [ -n "$tdir" ] && is_unsafe "$tdir"; then
  problem "TOOLS='$tdir' cannot be used: $(unsafe_reason "$tdir")"
elif [ -n "$tdir" ] && [ ${#tools[@]} -gt 0 ] && [ ! -d "$tdir" ]; then
  problem "TOOLS='$tdir' is not a directory (give the folder of the built tools, as build/bin)"
else
  missing=()
  for t in "${tools[@]}"; do
    if [ -n "$tdir" ]; then
      [ -x "$tdir/$t" ] || missing+=("$t")
    else
      command -v "$t" > /dev/null || missing+=("$t")
    fi
  done
  if [ ${#missing[@]} -gt 0 ] && [ -n "$tdir" ]; then
    problem "TOOLS='$tdir' lacks ${missing[*]} (build them: ninja -C build ${missing[*]})"
  elif [ ${#missing[@]} -gt 0 ]; then
    problem "${missing[*]} not on PATH: put the tools' folder on PATH (in the repository:" \
      "export PATH=\"\$PWD/build/bin:\$PATH\") or give TOOLS=DIR"
  fi
fi

# ---- the kernels and their names ----
obj=$(v OBJ)
if [[ $obj =~ [[:space:]] ]]; then
  problem "OBJ='$obj' has a space: make splits paths at spaces, so it cannot take this path;" \
    "give the object by a path without spaces (a copy or a link: ln -s '$obj' k.hsaco)"
  kernels=()
fi
# The steps need kernels (report without them writes the run's report alone).
if [ ${#kernels[@]} -eq 0 ] && [ -z "$obj" ] && [ "$steps" = 1 ]; then
  problem "give a kernel object: make -f Makefile.workflow OBJ=K.hsaco" \
    "(or KERNELS=\"a.hsaco b.hsaco\")"
fi

# The name of a kernel: the name of the object's directory, a '-', and the file name without its
# extension (a/k.hsaco: a-k). The directory's name is that of the directory the path leads to,
# '.' and '..' resolved (k.hsaco in /work/kernels: kernels-k); an object in / is named by its
# file name alone. Characters other than letters, digits and . _ + - become _, and leading dots
# are dropped, so a name is never a hidden directory.
name() {
  local d s=${1##*/}
  d=$(realpath -m -s -- "$(dirname -- "$1")")
  d=${d##*/}
  s=${d:+$d-}${s%.*}
  s=${s//[^A-Za-z0-9._+-]/_}
  while [[ $s == .* ]]; do s=${s#.}; done
  echo "${s:-kernel}"
}
declare -A byname
names=()
several=$((${#kernels[@]} > 1))
for k in "${kernels[@]}"; do
  if is_unsafe "$k"; then
    problem "kernel object '$k' cannot be used: $(unsafe_reason "$k"); give it by a path" \
      "without such characters (a copy or a link)"
    continue
  fi
  if [ "$steps" = 1 ] && [ ! -f "$k" ]; then
    if [ "$several" = 1 ]; then
      problem "no kernel object '$k' (in $cwd; KERNELS is split at spaces, so a path with" \
        "spaces cannot be given)"
    else
      problem "no kernel object '$k' (in $cwd)"
    fi
  fi
  n=$(name "$k")
  if [ -n "${byname[$n]-}" ]; then
    other=${byname[$n]}
    if [ "$(realpath -m -- "$other")" = "$(realpath -m -- "$k")" ]; then
      problem "kernel object '$k' is given twice ('$other' and '$k')"
    else
      problem "kernel objects '$other' and '$k' have the same name, $n (the run directory" \
        "RUN/$n): give one of them from a directory of another name (a copy or a link)"
    fi
    continue
  fi
  byname[$n]=$k
  names+=("$n")
done

# ---- captured dispatches: CAPTURES (or CAPTURE), of the one kernel object ----
captures=$(v CAPTURES)
if [ "$steps" = 1 ] && [ -n "$captures" ]; then
  [ "${#kernels[@]}" -gt 1 ] &&
    problem "CAPTURE is for one kernel object (OBJ=K.hsaco, the code object the dispatches ran)," \
      "not ${#kernels[@]}"
  for c in $captures; do
    if is_unsafe "$c"; then
      problem "CAPTURE='$c' cannot be used: $(unsafe_reason "$c")"
    elif [ ! -f "$c" ]; then
      problem "no capture bundle CAPTURE='$c' (in $cwd; dispatch-capture -o FILE makes one)"
    fi
  done
fi

# ---- CAPTURE_WEIGHTS: one positive number per capture ----
weights=$(v CAPTURE_WEIGHTS)
if [ "$steps" = 1 ] && [ -n "$weights" ]; then
  read -ra caps <<< "$captures"
  IFS=, read -ra ws <<< "$weights"
  if [ "${#caps[@]}" -eq 0 ]; then
    problem "CAPTURE_WEIGHTS='$weights' without CAPTURE: the weights are the captures' in their sum"
  elif [ "${#ws[@]}" -ne "${#caps[@]}" ]; then
    problem "CAPTURE_WEIGHTS='$weights' gives ${#ws[@]} weights for ${#caps[@]} captures (W,W,...," \
      "one per capture, in CAPTURES' order)"
  else
    for w in "${ws[@]}"; do
      [[ $w =~ ^([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$ ]] && awk "BEGIN{exit !($w > 0)}" ||
        problem "CAPTURE_WEIGHTS: '$w' is not a positive number"
    done
  fi
fi

# ---- TIME_SPEC: a representative launch to time on (one kernel object, no captures) ----
time_spec=$(v TIME_SPEC)
if [ "$steps" = 1 ] && [ -n "$time_spec" ]; then
  if [ -n "$captures" ]; then
    problem "TIME_SPEC and CAPTURE: the captured dispatches are the timing launch; give one or" \
      "the other"
  elif [ "${#kernels[@]}" -gt 1 ]; then
    problem "TIME_SPEC is for one kernel object (OBJ=K.hsaco), not ${#kernels[@]}"
  elif is_unsafe "$time_spec"; then
    problem "TIME_SPEC='$time_spec' cannot be used: $(unsafe_reason "$time_spec")"
  elif [ ! -f "$time_spec" ]; then
    problem "no launch spec TIME_SPEC='$time_spec' (in $cwd)"
  fi
fi

# ---- the launch specs: SPEC for every kernel, or SPECS/<file name>.json (with CAPTURE only
# SPEC, and it may be left out) ----
spec=$(v SPEC) specs=$(v SPECS)
if [ "$steps" = 1 ] && [ -n "$captures" ] && [ -z "$spec" ]; then
  : # correctness and timing on the captures alone
elif [ "$steps" = 1 ] && [ -n "$spec" ]; then
  if is_unsafe "$spec"; then
    problem "SPEC='$spec' cannot be used: $(unsafe_reason "$spec")"
  elif [ ! -f "$spec" ]; then
    problem "no launch spec SPEC='$spec' (in $cwd)"
  fi
elif [ "$steps" = 1 ]; then
  if is_unsafe "$specs"; then
    problem "SPECS='$specs' cannot be used: $(unsafe_reason "$specs")"
  else
    for i in "${!names[@]}"; do
      k=${byname[${names[i]}]}
      # a finished spec step needs no partial spec
      [ -f "$run/${names[i]}/spec.json" ] && continue
      s=$(basename -- "$k")
      s=$specs/${s%.*}.json
      [ -f "$s" ] && continue
      if [ ! -d "$specs" ]; then
        problem "no launch spec for '$k': SPECS='$specs' is not a directory in $cwd" \
          "(the default, test/specs, is the repository's: run make in the repository root," \
          "make -C REPO); give SPEC=partial.json for the kernel or SPECS=DIR"
        break
      fi
      problem "no launch spec for '$k': no '$s'; write a partial spec (README.md: Writing" \
        "a launch spec) and give it as SPEC=FILE, or put it there"
    done
  fi
fi

[ "$problems" = 0 ] || exit 2
echo "$team $workers ${names[*]}"
