#!/usr/bin/env bash
# Generate (and check) client stubs for languages other than Python and Node.js from the
# public protos (protos/cardengine/v1; the internal snapshot is never sent to clients), with
# protoc and the gRPC plugins that Debian packages.
#
#   clients/stubs.sh generate LANG...   write clients/LANG/generated/ (not committed)
#   clients/stubs.sh check LANG...      compile or load what was generated
#
# LANG: cpp ruby php go java (messages and service clients), csharp objc (messages only:
# Debian has no grpc_csharp_plugin or grpc_objective_c_plugin; see their READMEs).
set -euo pipefail
cd "$(dirname "$0")/.."

GO_MODULE=${GO_MODULE:-example.com/cardengine}
mapfile -t PROTOS < <(find protos/cardengine/v1 -name '*.proto' | sed 's|^protos/||' | sort)
CHECK_DIR=$(mktemp -d)
trap 'rm -rf "$CHECK_DIR"' EXIT

out() { echo "clients/$1/generated"; }

fresh() {
  rm -rf "$(out "$1")"
  mkdir -p "$(out "$1")"
}

plugin() {  # the path of a protoc plugin, or a clear failure naming its Debian package
  command -v "$1" 2>/dev/null || { echo "$1 missing: make stubs-deps installs $2" >&2; exit 1; }
}

protoc_for() {  # protoc_for LANG ARGS...: run protoc on the public protos into clients/LANG/generated
  local lang=$1
  shift
  fresh "$lang"
  protoc -I protos "$@" "${PROTOS[@]}"
  echo "generated $(find "$(out "$lang")" -type f | wc -l) files in $(out "$lang")"
}

generate() {
  local dir
  dir=$(out "$1")
  case $1 in
    cpp) protoc_for cpp --cpp_out="$dir" --grpc_out="$dir" \
           --plugin=protoc-gen-grpc="$(plugin grpc_cpp_plugin protobuf-compiler-grpc)" ;;
    ruby) protoc_for ruby --ruby_out="$dir" --grpc_out="$dir" \
           --plugin=protoc-gen-grpc="$(plugin grpc_ruby_plugin protobuf-compiler-grpc)" ;;
    php) protoc_for php --php_out="$dir" --grpc_out="$dir" \
           --plugin=protoc-gen-grpc="$(plugin grpc_php_plugin protobuf-compiler-grpc)" ;;
    go)
      plugin protoc-gen-go protoc-gen-go >/dev/null
      plugin protoc-gen-go-grpc protoc-gen-go-grpc >/dev/null
      # the protos name no go_package: map each file to one package of module $GO_MODULE
      local maps=() file
      for file in "${PROTOS[@]}"; do
        maps+=("M$file=$GO_MODULE/cardengine/v1;cardenginev1")
      done
      local opts
      opts=$(IFS=,; echo "${maps[*]},module=$GO_MODULE")
      protoc_for go --go_out="$dir" --go_opt="$opts" --go-grpc_out="$dir" --go-grpc_opt="$opts"
      printf 'module %s\n\ngo 1.19\n' "$GO_MODULE" >"$dir/go.mod" ;;
    java) protoc_for java --java_out="$dir" --grpc-java_out="$dir" \
           --plugin=protoc-gen-grpc-java="$(plugin grpc_java_plugin protobuf-compiler-grpc-java-plugin)" ;;
    csharp) protoc_for csharp --csharp_out="$dir" ;;
    objc) protoc_for objc --objc_out="$dir" ;;
    *) echo "unknown language $1" >&2; exit 2 ;;
  esac
}

check() {
  local dir
  dir=$(out "$1")
  [ -d "$dir" ] || { echo "$dir is missing: generate first" >&2; exit 1; }
  case $1 in
    cpp)
      # compile every file, then link a program that builds a stub and a request
      local flags
      flags=$(pkg-config --cflags --libs grpc++ protobuf)
      cat >"$CHECK_DIR/main.cc" <<'EOF'
#include <grpcpp/grpcpp.h>
#include "cardengine/v1/engine_service.grpc.pb.h"
int main() {
  auto channel = grpc::CreateChannel("127.0.0.1:50051", grpc::InsecureChannelCredentials());
  auto stub = cardengine::v1::EngineService::NewStub(channel);
  cardengine::v1::CreateGameRequest request;
  request.set_game_type("hearts");
  request.add_seats(cardengine::v1::PLAYER_TYPE_HUMAN);
  return stub && request.seats_size() == 1 ? 0 : 1;
}
EOF
      local sources
      mapfile -t sources < <(find "$dir" -name '*.cc')
      # shellcheck disable=SC2086  # pkg-config prints several flags
      g++ -std=c++17 -O0 -I "$dir" "$CHECK_DIR/main.cc" "${sources[@]}" $flags \
        -o "$CHECK_DIR/cpp-check"
      "$CHECK_DIR/cpp-check" && echo "cpp: compiled and linked" ;;
    ruby)
      find "$dir" -name '*.rb' -print0 | xargs -0 -n1 ruby -c >/dev/null
      ruby -I "$dir" -e 'require "cardengine/v1/engine_service_services_pb"
        stub = Cardengine::V1::EngineService::Stub.new("127.0.0.1:50051", :this_channel_is_insecure)
        request = Cardengine::V1::CreateGameRequest.new(game_type: "hearts", seats: [:PLAYER_TYPE_HUMAN])
        raise "bad request" unless stub && request.seats == [:PLAYER_TYPE_HUMAN]'
      echo "ruby: syntax checked and loaded with grpc" ;;
    php)
      find "$dir" -name '*.php' -print0 | xargs -0 -n1 php -l >/dev/null
      echo "php: every file passes php -l" ;;
    go)
      # GOPATH mode over Debian's Go packages (golang-google-grpc-dev, golang-google-protobuf-dev)
      mkdir -p "$CHECK_DIR/gopath/src/$GO_MODULE"
      cp -r "$dir/cardengine" "$CHECK_DIR/gopath/src/$GO_MODULE/"
      (cd "$CHECK_DIR/gopath/src/$GO_MODULE" &&
        GO111MODULE=off GOPATH="$CHECK_DIR/gopath:/usr/share/gocode" GOCACHE="$CHECK_DIR/gocache" \
          go vet ./cardengine/v1)
      echo "go: vetted and compiled" ;;
    java)
      local jar classpath=""
      for jar in protobuf grpc-api grpc-stub grpc-protobuf guava geronimo-annotation-1.3-spec; do
        classpath+="/usr/share/java/$jar.jar:"
      done
      mkdir -p "$CHECK_DIR/classes"
      local sources
      mapfile -t sources < <(find "$dir" -name '*.java')
      javac -nowarn -cp "$classpath" -d "$CHECK_DIR/classes" "${sources[@]}"
      echo "java: compiled" ;;
    csharp | objc)
      echo "$1: generated only (no $1 toolchain here; see clients/$1/README.md)" ;;
    *) echo "unknown language $1" >&2; exit 2 ;;
  esac
}

action=${1:?usage: clients/stubs.sh generate|check LANG...}
shift
for lang in "$@"; do
  "$action" "$lang"
done
