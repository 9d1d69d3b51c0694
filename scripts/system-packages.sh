#!/usr/bin/env bash
# The Debian packages the README's commands need, in one list. `npm start` and `npm test` call this
# script before anything else, and so does CI.
#
#   scripts/system-packages.sh start   what the service needs to run
#   scripts/system-packages.sh test    what the test command needs (everything below)
#   scripts/system-packages.sh --list [start|test]   prints the package names and exits
#
# Packages already installed are left alone (checked with dpkg-query). Missing ones are installed
# with apt-get when the script runs as root (a failed apt-get is reported, not fatal: what needs the
# package then fails saying so); otherwise it stops at once (exit 1) and prints the exact command. SYSTEM_PACKAGES=skip skips the check (for machines that bring the same
# tools another way). On a system without dpkg it only prints the list.
set -euo pipefail

# package                | needed by  | why
PACKAGES=(
  "fonts-dejavu-core      | start test | text on the demo pages, lettering of translated pages"
  "tesseract-ocr-eng      | start test | English OCR model of the local translation path"
  "tesseract-ocr-jpn      | start test | Japanese OCR model (horizontal text)"
  "tesseract-ocr-jpn-vert | start test | Japanese OCR model (vertical text)"
  "tesseract-ocr          | test       | the tesseract CLI (OCR benchmark)"
  "tesseract-ocr-fra      | test       | French pages in the translation tests"
  "tesseract-ocr-spa      | test       | Spanish pages in the translation tests"
  "fonts-noto-cjk         | test       | Japanese test pages"
  "python3                | test       | the processor's engine adapter tests"
  "chromium               | test       | browser tests"
  "sqlite3                | test       | benchmarks (the native sqlite3 shell)"
  "libvips-tools          | test       | benchmarks (vipsthumbnail, vips)"
  "unzip                  | test       | benchmarks, archive checks"
  "zip                    | test       | benchmarks (zip -0)"
  "libxml2-utils          | test       | xmllint: ComicInfo and OPDS documents against their published schemas"
  "postgresql             | test       | PostgreSQL tests (a throwaway cluster on a loopback port)"
  "redis-server           | test       | Redis tests (a throwaway server on a loopback port)"
  "git                    | test       | the start test clones the repository"
)

mode="${1:-test}"
list_only=0
if [ "$mode" = "--list" ]; then
  list_only=1
  mode="${2:-test}"
fi
case "$mode" in
  start | test) ;;
  *)
    echo "usage: $0 [--list] start|test" >&2
    exit 2
    ;;
esac

wanted=()
for line in "${PACKAGES[@]}"; do
  IFS='|' read -r name needs _ <<<"$line"
  case " $needs " in
    *" $mode "*) wanted+=("${name// /}") ;;
  esac
done

if [ "$list_only" = 1 ]; then
  printf '%s\n' "${wanted[@]}"
  exit 0
fi
[ "${SYSTEM_PACKAGES:-}" = "skip" ] && exit 0

if ! command -v dpkg-query >/dev/null 2>&1; then
  echo "note: not a Debian system; the README's commands expect these packages (or their equivalents): ${wanted[*]}" >&2
  exit 0
fi

# One dpkg-query for the whole list (it names each installed package; unknown ones only on stderr).
installed=" $(dpkg-query -W -f='${db:Status-Status}:${Package} ' "${wanted[@]}" 2>/dev/null || true) "
missing=()
for name in "${wanted[@]}"; do
  case "$installed" in
    *" installed:$name "*) ;;
    *) missing+=("$name") ;;
  esac
done
[ ${#missing[@]} -eq 0 ] && exit 0

command_line="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "Missing system packages: ${missing[*]}" >&2
  echo "Install them (as root), then run the command again:" >&2
  echo "  sudo apt-get update && sudo $command_line" >&2
  exit 1
fi

echo "Installing system packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
if ! { apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}"; }; then
  echo "warning: could not install ${missing[*]} (run: apt-get update && $command_line)" >&2
fi
