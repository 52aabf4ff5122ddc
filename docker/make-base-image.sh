#!/usr/bin/env bash
# Makes the base image the Dockerfile builds FROM, out of Debian packages alone (no image registry needed):
#   debootstrap --variant=minbase bookworm DIR, then tar -C DIR -c . | docker import - NAME
# Reuses the image when it is already there. Needs root, debootstrap and a running Docker engine.
# Usage: docker/make-base-image.sh [NAME]   (default: edge-bridge-base:bookworm)
# MIRROR overrides the Debian mirror (default: http://deb.debian.org/debian), SECURITY_MIRROR the one for
# security updates (default: http://deb.debian.org/debian-security; "none" leaves them out).
set -euo pipefail
name="${1:-edge-bridge-base:bookworm}"
mirror="${MIRROR:-http://deb.debian.org/debian}"
security="${SECURITY_MIRROR:-http://deb.debian.org/debian-security}"

if docker image inspect "$name" >/dev/null 2>&1; then
  echo "base image $name is present: reused"
  exit 0
fi
command -v debootstrap >/dev/null 2>&1 || { echo "debootstrap is missing: apt-get install debootstrap" >&2; exit 1; }

root="$(mktemp -d /var/tmp/edge-bridge-base.XXXXXX)"
trap 'rm -rf "$root"' EXIT
echo "== debootstrap --variant=minbase bookworm $root $mirror"
debootstrap --variant=minbase bookworm "$root" "$mirror" >"$root.log" 2>&1 || { cat "$root.log" >&2; rm -f "$root.log"; exit 1; }
rm -f "$root.log"
# apt inside the image uses the same mirror, and the image stays small
printf 'deb %s bookworm main\ndeb %s bookworm-updates main\n' "$mirror" "$mirror" >"$root/etc/apt/sources.list"
[ "$security" = none ] || printf 'deb %s bookworm-security main\n' "$security" >>"$root/etc/apt/sources.list"
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
tar -C "$root" -c . | docker import - "$name" >/dev/null
echo "base image $name made ($(docker image inspect -f '{{.Size}}' "$name" | awk '{printf "%d MB", $1/1000000}'))"
