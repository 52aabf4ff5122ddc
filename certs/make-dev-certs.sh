#!/usr/bin/env bash
# Makes development TLS material with openssl (every Debian has it):
#   ca.pem / ca-key.pem           a CA for this site
#   server.pem / server-key.pem   the bridge's certificate: localhost, 127.0.0.1, ::1 and this host's name
#   devices/<id>.pem / <id>-key.pem  one client certificate per device id given (CN = the MQTT client id)
# Usage: certs/make-dev-certs.sh OUT_DIR [device-id ...]
# The private keys stay in OUT_DIR: never commit them (the repository's .gitignore refuses *.pem).
set -euo pipefail
out="${1:?usage: $0 OUT_DIR [device-id ...]}"
shift
mkdir -p "$out/devices"
cd "$out"
umask 077

if [ ! -f ca.pem ]; then
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 3650 \
    -subj "/CN=edge-bridge site CA" -keyout ca-key.pem -out ca.pem \
    -addext "basicConstraints=critical,CA:TRUE,pathlen:0" -addext "keyUsage=critical,keyCertSign,cRLSign"
fi

host="$(hostname -f 2>/dev/null || hostname)"
if [ ! -f server.pem ]; then
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=${host}" \
    -keyout server-key.pem -out server.csr
  openssl x509 -req -in server.csr -CA ca.pem -CAkey ca-key.pem -CAcreateserial -days 825 -out server.pem \
    -extfile <(printf 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyAgreement\nextendedKeyUsage=serverAuth\nsubjectAltName=DNS:localhost,DNS:%s,IP:127.0.0.1,IP:::1\n' "$host")
  rm -f server.csr
fi

for id in "$@"; do
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=${id}" \
    -keyout "devices/${id}-key.pem" -out "devices/${id}.csr"
  openssl x509 -req -in "devices/${id}.csr" -CA ca.pem -CAkey ca-key.pem -CAcreateserial -days 825 \
    -out "devices/${id}.pem" \
    -extfile <(printf 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth\n')
  rm -f "devices/${id}.csr"
done
echo "TLS material in $(pwd):"
ls -1 . devices
