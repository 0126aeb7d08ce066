#!/bin/sh
# Install the Debian packages hearth needs: as root with apt-get, otherwise
# print the exact command.  Safe to run again: it only installs what is missing.
set -eu
PKGS="build-essential pkg-config libncurses-dev libcurl4-openssl-dev libcjson-dev libgit2-dev
libtree-sitter-dev libmd4c-dev libmd4c-html0-dev libcmocka-dev tmux ncurses-term python3 npm git ca-certificates bubblewrap"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done
# node/npm may come from elsewhere than Debian; only ask for npm when it is absent.
case " $missing " in *" npm "*) command -v npm >/dev/null 2>&1 && missing=$(echo "$missing" | sed 's/ npm//');; esac
case " $missing " in *" python3 "*) command -v python3 >/dev/null 2>&1 && missing=$(echo "$missing" | sed 's/ python3//');; esac
if [ -z "$(echo $missing)" ]; then
	echo "bootstrap: all packages present"
	exit 0
fi
if [ "$(id -u)" = 0 ]; then
	echo "bootstrap: installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends $missing
else
	echo "bootstrap: missing packages; run:"
	echo "  sudo apt-get update && sudo apt-get install -y$missing"
	exit 1
fi
