#!/usr/bin/env bash
# Builds and runs the libFuzzer targets in Fuzz/ (see Fuzz/README.md).
#
#   scripts/fuzz.sh build              build the instrumented modules and every target binary
#   scripts/fuzz.sh run [TARGET...]    fuzz each target for FUZZ_SECONDS (default 60) from its corpus
#   scripts/fuzz.sh smoke [TARGET...]  replay the committed corpus, then fuzz FUZZ_SMOKE_SECONDS (default 4) each,
#                                      and on until FUZZ_SMOKE_RUNS (default 1000) executions if it had fewer
#   scripts/fuzz.sh replay FILE...     run one target over inputs: FUZZ_TARGET=name scripts/fuzz.sh replay crash-…
#
# The product modules are compiled once with `swiftc -sanitize=fuzzer,address` into static
# libraries under .build/fuzz/lib (rebuilt when a source is newer), and each Fuzz/Targets/NAME.swift
# is linked with Fuzz/Support/*.swift into .build/fuzz/bin/NAME. New corpus entries go to
# .build/fuzz/corpus/NAME; crashes to .build/fuzz/crashes/NAME (copy them into Fuzz/Corpus/NAME).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
# The package whose Sources/ are compiled (a snapshot of the repository, say); the fuzz targets,
# corpus and samples always come from ROOT.
SRC=${FUZZ_SRC:-$ROOT}
OUT=${FUZZ_OUT:-$ROOT/.build/fuzz}
SWIFTC=${SWIFTC:-swiftc}
ALL_TARGETS=(der unified legacy jws verifyreceipt detect config http console serve)
LIB=$OUT/lib
BIN=$OUT/bin
FLAGS=(-swift-version 6 -parse-as-library -Onone -sanitize=fuzzer,address -use-ld=lld -j"$(nproc 2>/dev/null || echo 2)")
CMODULES=(-I "$SRC/Sources/COpenSSL" -I "$SRC/Sources/CSQLite" -I "$SRC/Sources/CLibPQ" -I "$SRC/Sources/CMicroHTTPD" -Xcc -I/usr/include/postgresql)

log() { echo "fuzz: $*" >&2; }

# newer_than FILE DIR...: whether any .swift under DIR (or any other given file) is newer than
# FILE, or a folder under DIR changed (a source file moved away or added).
newer_than() {
    local file=$1; shift
    [ -f "$file" ] || return 0
    [ -n "$(find "$@" -newer "$file" \( -type d -o -name '*.swift' -o -name '*.a' -o -name '*.h' -o -name '*.modulemap' \) -print -quit 2>/dev/null)" ]
}

# module NAME DEPENDENCY-LIBS...: the static library for Sources/NAME.
module() {
    local name=$1; shift
    local deps=()
    for dep in "$@"; do deps+=("$LIB/lib$dep.a"); done
    if newer_than "$LIB/lib$name.a" "$SRC/Sources/$name" "${deps[@]}"; then
        log "compiling $name (instrumented)"
        mapfile -t sources < <(find "$SRC/Sources/$name" -name '*.swift' | sort)
        (cd "$LIB" && "$SWIFTC" "${FLAGS[@]}" -module-name "$name" -emit-module -emit-library -static \
            -I "$LIB" "${CMODULES[@]}" "${sources[@]}" -o "lib$name.a.tmp" && mv "lib$name.a.tmp" "lib$name.a")
    fi
}

build() {
    mkdir -p "$LIB" "$BIN"
    module ReceiptCore
    module AppStoreAPI ReceiptCore
    module StoreSimulator ReceiptCore
    module PurchaseStore AppStoreAPI ReceiptCore
    module ConsoleUI PurchaseStore AppStoreAPI ReceiptCore
    module HTTPService
    module LiveService HTTPService PurchaseStore AppStoreAPI ReceiptCore
    local support=("$ROOT"/Fuzz/Support/*.swift)
    for target in "${TARGETS[@]}"; do
        if newer_than "$BIN/$target" "$ROOT/Fuzz/Targets/$target.swift" "${support[@]}" "$LIB"; then
            log "linking $target"
            "$SWIFTC" "${FLAGS[@]}" -module-name "Fuzz_$target" -I "$LIB" -L "$LIB" "${CMODULES[@]}" \
                "$ROOT/Fuzz/Targets/$target.swift" "${support[@]}" \
                -lLiveService -lHTTPService -lConsoleUI -lPurchaseStore -lStoreSimulator -lAppStoreAPI -lReceiptCore -lcrypto -lsqlite3 -lpq -lmicrohttpd -o "$BIN/$target"
        fi
    done
}

# Seed inputs for a target: the real fixtures (Assets/Samples, ../shared/fixtures/apple when
# present), the generated ones (the target writes them), and the committed Fuzz/Corpus/TARGET.
seeds() {
    local target=$1 dir=$OUT/seeds/$1
    rm -rf "$dir"; mkdir -p "$dir"
    local samples=("$ROOT/Assets/Samples")
    [ -d "$ROOT/../shared/fixtures/apple" ] && samples+=("$ROOT/../shared/fixtures/apple")
    local files
    mapfile -t files < <(find "${samples[@]}" "$ROOT/Assets/Certificates" -type f ! -name '*.md' ! -name '*.swift' 2>/dev/null | sort)
    local i=0
    for f in "${files[@]}"; do
        i=$((i + 1))
        case "$target:$f" in
            der:*.b64|unified:*unified*.b64|legacy:*legacy*.b64) base64 -d "$f" > "$dir/fixture-$i" 2>/dev/null || true ;;
        esac
        case "$target:$f" in
            der:*.der|der:*.cer|detect:*|legacy:*legacy*.b64|jws:*.jws|jws:*.json|verifyreceipt:*.json|config:*.json) cp "$f" "$dir/fixture-$i-$(basename "$f")" ;;
        esac
    done
    [ "$target" = config ] && [ -f "$ROOT/.build/demo/config.json" ] && cp "$ROOT/.build/demo/config.json" "$dir/demo-config.json"
    RECEIPTDESK_FUZZ_SEED_DIR=$dir "$BIN/$target" -runs=0 "$dir" >/dev/null 2>"$OUT/seeds-$target.log" \
        || { cat "$OUT/seeds-$target.log" >&2; return 1; }
}

# fuzz TARGET SECONDS WRITABLE-CORPUS [AT-LEAST-RUNS]: one libFuzzer run of SECONDS; then, when it
# executed fewer than AT-LEAST-RUNS inputs (a slow target, a busy machine), another over the same
# corpus for the rest, so a smoke always exercises each target (at most FUZZ_SMOKE_CAP seconds,
# default 300, never a hang). Logs go to $OUT/logs/TARGET.log (and TARGET-more.log).
fuzz() {
    local target=$1 seconds=$2 corpus=$3 floor=${4:-0}
    mkdir -p "$corpus" "$OUT/crashes/$target" "$OUT/logs" "$ROOT/Fuzz/Corpus/$target"
    seeds "$target"
    local started=$SECONDS runs=0 pass limit
    for pass in "" -more; do
        if [ -z "$pass" ]; then limit=(-max_total_time="$seconds")
        elif [ "$runs" -lt "$floor" ]; then limit=(-runs=$((floor - runs)) -max_total_time="${FUZZ_SMOKE_CAP:-300}")
        else break; fi
        local status=0 logfile="$OUT/logs/$target$pass.log"
        "$BIN/$target" "${limit[@]}" -timeout=60 -rss_limit_mb=3072 -max_len=65536 -print_final_stats=1 \
            -artifact_prefix="$OUT/crashes/$target/" "$corpus" "$ROOT/Fuzz/Corpus/$target" "$OUT/seeds/$target" \
            > "$logfile" 2>&1 || status=$?
        local these
        these=$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$logfile" | grep -Eo '[0-9]+$' || echo 0)
        runs=$((runs + these))
        if [ $status -ne 0 ]; then
            log "$target: FAILED after $runs executions (exit $status); log $logfile"
            grep -E '^(==[0-9]+==ERROR|SUMMARY|Fatal error|.*Fatal error|artifact_prefix|Test unit written)' "$logfile" | head -8 >&2 || true
            return 1
        fi
    done
    if [ "$runs" -lt "$floor" ]; then
        log "$target: only $runs executions of the $floor a smoke runs (capped at ${FUZZ_SMOKE_CAP:-300}s); log $OUT/logs/$target-more.log"
        return 1
    fi
    log "$target: $runs executions in $((SECONDS - started))s, no crash"
}

command=${1:-run}; shift || true
if [ $# -gt 0 ] && [ "$command" != replay ]; then TARGETS=("$@"); else TARGETS=("${ALL_TARGETS[@]}"); fi
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:allocator_may_return_null=1}
# Swift's own crash backtracer hides the stack from ASan and libFuzzer; let them report it.
export SWIFT_BACKTRACE=${SWIFT_BACKTRACE:-enable=no}

case "$command" in
    build) build ;;
    run|smoke)
        build
        failed=()
        for target in "${TARGETS[@]}"; do
            if [ "$command" = run ]; then
                fuzz "$target" "${FUZZ_SECONDS:-60}" "$OUT/corpus/$target" || failed+=("$target")
            else
                scratch=$(mktemp -d)
                fuzz "$target" "${FUZZ_SMOKE_SECONDS:-4}" "$scratch" "${FUZZ_SMOKE_RUNS:-1000}" || failed+=("$target")
                rm -rf "$scratch"
            fi
        done
        if [ ${#failed[@]} -gt 0 ]; then log "crashes in: ${failed[*]} (inputs under $OUT/crashes)"; exit 1; fi
        ;;
    replay)
        build
        "$BIN/${FUZZ_TARGET:?set FUZZ_TARGET to the target name}" "$@" ;;
    *) echo "usage: $0 build|run|smoke [TARGET...] | replay FILE..." >&2; exit 64 ;;
esac
