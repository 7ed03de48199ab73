#!/usr/bin/env bash
# House rule: a folder of libcommon includes only its own headers and those of the folders its
# library may use (the arrows of libcommon/CMakeLists.txt):
#   support <- codeobj <- asm
#   codeobj <- emu <- device <- launch <- check (check also uses asm; launch and check include no
#   emu header: the number formats they share with the emulator are support's)
#   launch <- timing (timing also uses asm; it never includes emu: the model sees a launch only
#   through the device interface)
#   support <- llm (the LLM endpoint client)
#   check, timing, llm <- search (asmevo-agent's controller; never emu either)
#   support <- report (asmevo-report: reads a run directory's files, writes HTML)
#   support, codeobj <- install (asmevo-install)
# and only asm includes LLVM's MC layer, its targets and lld (llvm/MC/, llvm/Target/, lld/).
#   bash test/lint/check-includes.sh [SOURCE_DIR]
# Exit 0 clean, 1 with every offending "file:line: folder may not include header" listed.
set -uo pipefail
src=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
declare -A allowed=(
  [support]="support"
  [codeobj]="support codeobj"
  [asm]="support codeobj asm"
  [emu]="support codeobj emu"
  [device]="support codeobj emu device"
  [launch]="support codeobj device launch"
  [check]="support codeobj asm device launch check"
  [timing]="support codeobj asm device launch timing"
  [llm]="support llm"
  [search]="support codeobj asm device launch check timing llm search"
  [report]="support report"
  [install]="support codeobj install"
)
lib=$src/libcommon
if [[ ! -d $lib ]]; then
  echo "check-includes: error: no libcommon under '$src'" >&2
  exit 2
fi
status=0 files=0
for dir in "$lib"/*/; do
  folder=$(basename "$dir")
  if [[ -z ${allowed[$folder]+x} ]]; then
    echo "check-includes: libcommon/$folder: a folder with no arrows (add it to libcommon/CMakeLists.txt and to this script)" >&2
    status=1
    continue
  fi
  for f in "$dir"*.h "$dir"*.cpp "$dir"*.inc; do
    [[ -e $f ]] || continue
    files=$((files + 1))
    while IFS=: read -r line header; do
      used=${header%%/*}
      if [[ $used == lld || $header == llvm/MC/* || $header == llvm/Target/* ]]; then
        if [[ $folder != asm ]]; then
          echo "libcommon/$folder/$(basename "$f"):$line: $folder may not include $header" \
               "(only asm uses LLVM's MC layer and lld)" >&2
          status=1
        fi
        continue
      fi
      [[ -d $lib/$used ]] || continue # a system or other LLVM header
      if [[ " ${allowed[$folder]} " != *" $used "* ]]; then
        echo "libcommon/$folder/$(basename "$f"):$line: $folder may not include $header" \
             "($folder uses: ${allowed[$folder]})" >&2
        status=1
      fi
    done < <(grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[a-z]+/' "$f" |
             sed -E 's/^([0-9]+):[^"]*"([^"]*)".*/\1:\2/')
  done
done
((status == 0)) && echo "check-includes: $files files follow the arrows"
exit $status
