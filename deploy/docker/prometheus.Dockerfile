# Debian's Prometheus on the debootstrap-made base (no registry needed).
# compose.yaml gives the flags (config, storage in /tmp, listen address).
ARG BASE=edgefleet-bookworm-base
FROM ${BASE}
RUN apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
      --no-install-recommends prometheus >/dev/null && rm -rf /var/lib/apt/lists/*
USER nobody
ENTRYPOINT ["/usr/bin/prometheus"]
CMD ["--config.file=/etc/prometheus/prometheus.yml", "--storage.tsdb.path=/tmp/prometheus", \
     "--web.listen-address=127.0.0.1:9090"]
