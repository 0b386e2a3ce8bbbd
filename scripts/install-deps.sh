#!/usr/bin/env bash
# Installs the Debian packages Spotlite needs to build and run, if any is missing: Xapian (library, headers,
# tools) and SQLite (library, headers, the sqlite3 shell). Given package names instead, installs those
# (install-test-deps.sh and install-bench-deps.sh do).
set -euo pipefail
packages=(libxapian-dev xapian-tools libsqlite3-dev sqlite3)
if [ $# -gt 0 ]; then packages=("$@"); fi
missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi
echo "installing: ${missing[*]}" >&2
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
