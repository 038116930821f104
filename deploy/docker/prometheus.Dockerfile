# Debian's Prometheus on the debootstrap-made base (no registry needed).
ARG BASE=edgefleet-bookworm-base
FROM ${BASE}
RUN apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
      --no-install-recommends prometheus >/dev/null && rm -rf /var/lib/apt/lists/*
USER nobody
ENTRYPOINT ["/usr/bin/prometheus", "--config.file=/etc/prometheus/prometheus.yml", \
            "--storage.tsdb.path=/tmp/prometheus", "--web.listen-address=127.0.0.1:9090"]
