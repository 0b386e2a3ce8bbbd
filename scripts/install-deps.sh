#!/usr/bin/env bash
# Installs the Debian packages Spotlite needs, if any is missing: Xapian (library, headers, tools),
# SQLite (library, headers, the sqlite3 shell the end-to-end tests drive), and the word list the benchmarks'
# dictionary corpus draws from (wamerican: /usr/share/dict/words), and the load tools of the benchmarks (wrk,
# hyperfine). Given package names instead, installs those (install-test-deps.sh does).
set -euo pipefail
packages=(libxapian-dev xapian-tools libsqlite3-dev sqlite3 wamerican wrk hyperfine)
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
