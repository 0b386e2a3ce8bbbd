import SpotliteCLI

Spotlite.runAsMain()
