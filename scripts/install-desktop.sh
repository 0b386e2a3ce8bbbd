#!/usr/bin/env bash
# Registers Spotlite for tracker:// links and installs the systemd user unit of `spotlite serve`, for the user
# running it (make install calls it): $PREFIX/share/applications/spotlite.desktop, the default handler of
# x-scheme-handler/tracker in $XDG_CONFIG_HOME/mimeapps.list (via xdg-mime, when xdg-utils is there), and
# $XDG_CONFIG_HOME/systemd/user/spotlite-serve.service. `xdg-open tracker://…` then runs `spotlite open --browser
# --hold`: the row's page in the running `spotlite serve`, or the row in a terminal that stays until Enter.
set -euo pipefail
prefix=${1:?usage: install-desktop.sh PREFIX}
config=${XDG_CONFIG_HOME:-$HOME/.config}
applications="$prefix/share/applications"
mkdir -p "$applications" "$config/systemd/user"
cat > "$applications/spotlite.desktop" <<DESKTOP
[Desktop Entry]
Type=Application
Name=Spotlite
Comment=Open tracker:// links: the item, project or message behind them
Exec=$prefix/bin/spotlite open --browser --hold %u
Terminal=true
NoDisplay=true
MimeType=x-scheme-handler/tracker;
DESKTOP
if command -v xdg-mime >/dev/null; then
    xdg-mime default spotlite.desktop x-scheme-handler/tracker
else
    echo "note: xdg-utils is not installed; add 'x-scheme-handler/tracker=spotlite.desktop' to $config/mimeapps.list" >&2
fi
if command -v update-desktop-database >/dev/null; then update-desktop-database "$applications" 2>/dev/null || true; fi
cat > "$config/systemd/user/spotlite-serve.service" <<UNIT
[Unit]
Description=Spotlite: search service for the tracker store (spotlite serve)
Documentation=man:spotlite(1)

[Service]
ExecStart=$prefix/bin/spotlite serve
Restart=on-failure
# SIGTERM stops it gracefully: requests in flight finish, the index is committed.
KillSignal=SIGTERM
TimeoutStopSec=30

[Install]
WantedBy=default.target
UNIT
echo "installed $applications/spotlite.desktop (tracker:// links) and $config/systemd/user/spotlite-serve.service"
echo "start the service with: systemctl --user daemon-reload && systemctl --user enable --now spotlite-serve"
