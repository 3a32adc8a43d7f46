# Sourced by the scripts that `npm test` runs first (ensure-*.sh): `apt_install PACKAGE PURPOSE` installs a
# Debian or Ubuntu package when it can (as root, or with password-less sudo) and fails otherwise, quietly:
# the caller says what to do.
apt_install() {
  command -v apt-get >/dev/null 2>&1 || return 1
  if [ "$(id -u)" = 0 ]; then sudo=""; elif sudo -n true 2>/dev/null; then sudo="sudo -n"; else return 1; fi
  echo "Installing $1 for $2 (apt-get)..."
  ($sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$1") >/dev/null 2>&1
}
