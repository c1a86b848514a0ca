# The image examples/kubernetes/ledgerbench-indexed-job.yaml names: a static
# ledgerbench (CGO_ENABLED=0) with the pinned upstream data pulled into /data
# at build time (from GitHub at the commits of
# internal/source/data/manifest.tsv, each file hash-checked; DATA_FROM=URL
# pulls from a mirror instead).
#
#   docker build -t ledgerbench:latest .
#   docker run --rm ledgerbench:latest run --domain retail --backbone sim --no-judge --limit 5
ARG GO_VERSION=1.26

FROM golang:${GO_VERSION} AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/ledgerbench ./cmd/ledgerbench
ARG DATA_FROM=
RUN /out/ledgerbench data pull --data /data ${DATA_FROM:+--from "$DATA_FROM"} && /out/ledgerbench data check --data /data

# distroless/static: no shell, CA certificates for model backbones over HTTPS.
FROM gcr.io/distroless/static-debian12
COPY --from=build /out/ledgerbench /usr/local/bin/ledgerbench
COPY --from=build /data /data
ENV LEDGERBENCH_DATA=/data
WORKDIR /runs
ENTRYPOINT ["ledgerbench"]
