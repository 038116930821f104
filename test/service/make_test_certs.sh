#!/usr/bin/env bash
# Makes the TLS material of security_test.cc with openssl: a throwaway CA,
# a server certificate for 127.0.0.1 / localhost / edgefleet-server (the
# name the Kubernetes manifests verify) and a client certificate,
# both signed by it, plus a second CA that signed neither, and an admin
# token. Keys are fresh on every run and live only under OUT_DIR.
# Usage: make_test_certs.sh OUT_DIR
set -euo pipefail
out=${1:?usage: make_test_certs.sh OUT_DIR}
mkdir -p "$out" && cd "$out"
rm -f ./*.pem ./*.srl ./*.csr ./*.ext admin_token
quiet() { "$@" >/dev/null 2>&1 || { echo "make_test_certs: failed: $*" >&2; exit 1; }; }
for ca in ca other_ca; do
  quiet openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=edgefleet test $ca" \
    -keyout "$ca.key.pem" -out "$ca.pem"
done
printf 'subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:edgefleet-server\nextendedKeyUsage=serverAuth\n' >server.ext
printf 'extendedKeyUsage=clientAuth\n' >client.ext
for who in server client; do
  quiet openssl req -newkey rsa:2048 -nodes -subj "/CN=edgefleet test $who" \
    -keyout "$who.key.pem" -out "$who.csr"
  quiet openssl x509 -req -in "$who.csr" -CA ca.pem -CAkey ca.key.pem -CAcreateserial \
    -days 2 -extfile "$who.ext" -out "$who.pem"
done
head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >admin_token
echo >>admin_token
echo "$out"
