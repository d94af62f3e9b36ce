# restls serve --http in a container: a static binary on an empty base,
# run as a non-root user, happy with a read-only root file system and no
# tmpfs: it writes only what its flags name (--audit, --log-file,
# --page-url-file), and a dry run's pasted fixtures travel in the child's
# request, never on disk (docs/runtime.md, "The dry-run child").
# docs/deploy.md shows how to run it beside the platform.
#
# internal/hygiene/dockerfile_test.go runs the build stage's go build line below,
# as written, and checks the result is static: keep it on one RUN line.

FROM golang:1.26-bookworm AS build
WORKDIR /src
# third_party: go.mod replaces a dependency with the copy there.
COPY go.mod go.sum ./
COPY third_party ./third_party
RUN go mod download
COPY . .
# The version and the commit restls reports (restls version): .dockerignore
# keeps .git out of the context, so both come from the build arguments
# (docs/deploy.md gives the command).
ARG VERSION=dev
ARG COMMIT=unknown
RUN CGO_ENABLED=0 GOOS=linux go build -trimpath -pgo=cmd/restls/restls.pgo -ldflags "-s -w -X main.version=${VERSION} -X main.commit=${COMMIT}" -o bin/restls-static ./cmd/restls
# An empty /tmp, for a user's own tools that expect one; restls writes nothing there.
RUN mkdir -p /rootfs/tmp && chmod 1777 /rootfs/tmp

FROM scratch
COPY --from=build /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY --from=build /rootfs/ /
COPY --from=build /src/bin/restls-static /restls
USER 65532:65532
EXPOSE 7373 9090
ENTRYPOINT ["/restls"]
# Listens on every interface, so --token is required: set RESTLS_HTTP_TOKEN.
CMD ["serve", "--http", "0.0.0.0:7373", "--config-root", "/config", "--metrics-addr", "0.0.0.0:9090"]
