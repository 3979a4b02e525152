"""deploy/: every YAML parses, the Kubernetes manifests pass the Kubernetes schemas (offline,
kubernetes-validate, strict: unknown fields fail), and the files agree with each other and
with the service (ports, probes, the health-check module, non-root user, Redis AOF, the
Redis password from one Secret on both sides, the NetworkPolicies, the bind-address flags,
the replicas' spreading, drains and scale-down), and the Redis Cluster values for the Bitnami
chart carry what the service needs.

The image cannot be built here (no container registry to pull the base from), nor the Redis
Cluster chart rendered (no chart registry); the compose file is checked with ``docker compose
config`` only where a compose CLI is installed.
"""

from __future__ import annotations

import importlib.util
import math
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
K8S = DEPLOY / "k8s"
KUBERNETES_VERSIONS = ("1.30.0", "1.35.0")  # the oldest with the preStop sleep action on
GRPC_PORT, METRICS_PORT = 50051, 9464
PROCESSES = 2
"""Server processes per replica: each serves metrics on METRICS_PORT + its index."""
METRICS_PORTS = [METRICS_PORT + index for index in range(PROCESSES)]
HEALTHCHECK_MODULE = "engine_service.api.healthcheck"
SETTINGS = Path(__file__).resolve().parents[2] / "engine_service" / "settings.py"
REDIS_PORT = 6379


def documents(path: Path) -> list[dict[str, Any]]:
    return [doc for doc in yaml.safe_load_all(path.read_text()) if doc is not None]


def manifest_files() -> list[Path]:
    return sorted(path for path in K8S.glob("*.yaml") if path.name != "kustomization.yaml")


def manifests() -> list[dict[str, Any]]:
    return [doc for path in manifest_files() for doc in documents(path)]


def of_kind(kind: str, name: str) -> dict[str, Any]:
    (found,) = [m for m in manifests() if m["kind"] == kind and m["metadata"]["name"] == name]
    return found


def test_every_yaml_under_deploy_parses() -> None:
    paths = sorted(DEPLOY.rglob("*.y*ml"))
    assert len(paths) >= 7
    for path in paths:
        assert documents(path), path


@pytest.mark.parametrize("version", KUBERNETES_VERSIONS)
def test_manifests_pass_the_kubernetes_schemas(version: str) -> None:
    resources = manifests()
    kinds = {m["kind"] for m in resources}
    expected = {"Deployment", "Service", "HorizontalPodAutoscaler", "PodDisruptionBudget"}
    assert expected | {"StatefulSet", "NetworkPolicy"} <= kinds
    for resource in resources:
        kubernetes_validate.validate(resource, version, strict=True)


def test_kustomization_lists_every_manifest() -> None:
    (kustomization,) = documents(K8S / "kustomization.yaml")
    assert set(kustomization["resources"]) == {path.name for path in manifest_files()}


def engine_container() -> dict[str, Any]:
    deployment = of_kind("Deployment", "engine")
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    return container


def test_engine_probes_use_grpc_health_on_the_serving_port() -> None:
    container = engine_container()
    ports = {port["name"]: port["containerPort"] for port in container["ports"]}
    assert ports == {"grpc": GRPC_PORT, "metrics": METRICS_PORT, "metrics-1": METRICS_PORT + 1}
    readiness = container["readinessProbe"]["grpc"]
    assert readiness == {"port": GRPC_PORT, "service": "cardengine.v1.EngineService"}
    # liveness must not follow Redis (the health service does): the port accepting is enough
    assert container["livenessProbe"]["tcpSocket"]["port"] in ("grpc", GRPC_PORT)
    env = plain_env(container)
    assert env["ENGINE_ADDRESS"].endswith(f":{GRPC_PORT}")
    assert env["ENGINE_METRICS_PORT"] == str(METRICS_PORT)
    assert (
        int(env["ENGINE_PROCESSES"]) == PROCESSES == int(container["resources"]["requests"]["cpu"])
    )
    grace = of_kind("Deployment", "engine")["spec"]["template"]["spec"]
    assert grace["terminationGracePeriodSeconds"] > float(env["ENGINE_GRACE"]) + 5


def plain_env(container: dict[str, Any]) -> dict[str, str]:
    """The container's environment variables that have a literal value."""
    return {item["name"]: item["value"] for item in container["env"] if "value" in item}


def secret_refs(container: dict[str, Any]) -> dict[str, tuple[str, str]]:
    """Each variable taken from a Secret: its Secret's name and key."""
    return {
        item["name"]: (ref["name"], ref["key"])
        for item in container["env"]
        if (ref := item.get("valueFrom", {}).get("secretKeyRef"))
    }


def redis_container() -> dict[str, Any]:
    (redis,) = of_kind("StatefulSet", "redis")["spec"]["template"]["spec"]["containers"]
    return redis


def flag_value(args: list[str], flag: str) -> str:
    return args[args.index(flag) + 1]


def test_redis_and_engine_share_the_password_of_one_secret() -> None:
    """requirepass comes from a Secret; the engine's REDIS_URL carries the same one, and no
    password is written in the repository (the Secret is created at install time)."""
    redis, engine = redis_container(), engine_container()
    source = secret_refs(redis)["REDIS_PASSWORD"]
    assert flag_value(redis["args"], "--requirepass") == "$(REDIS_PASSWORD)"
    assert secret_refs(redis)["REDISCLI_AUTH"] == source  # the readiness probe's redis-cli
    assert secret_refs(engine)["REDIS_PASSWORD"] == source
    names = [item["name"] for item in engine["env"]]
    # Kubernetes expands $(VAR) only from variables defined before it
    assert names.index("REDIS_PASSWORD") < names.index("REDIS_URL")
    url = plain_env(engine)["REDIS_URL"]
    assert url == f"redis://:$(REDIS_PASSWORD)@redis:{REDIS_PORT}/0"
    assert not [m for m in manifests() if m["kind"] == "Secret"], "no Secret values committed"
    compose = documents(DEPLOY / "compose.yaml")[0]["services"]
    assert flag_value(compose["redis"]["command"], "--requirepass").startswith("${REDIS_PASSWORD")
    assert compose["engine"]["environment"]["REDIS_URL"].startswith("redis://:${REDIS_PASSWORD")


def test_redis_writes_every_acknowledged_move_to_its_append_only_file() -> None:
    args = redis_container()["args"]
    assert flag_value(args, "--appendonly") == "yes"
    assert flag_value(args, "--appendfsync") in {"everysec", "always"}
    command = documents(DEPLOY / "compose.yaml")[0]["services"]["redis"]["command"]
    assert flag_value(command, "--appendfsync") == flag_value(args, "--appendfsync")


def policy_for(name: str) -> dict[str, Any]:
    policy = of_kind("NetworkPolicy", name)["spec"]
    assert policy["policyTypes"] == ["Ingress"]
    return policy


def test_only_the_engine_pods_reach_redis() -> None:
    policy = policy_for("redis")
    redis_labels = of_kind("StatefulSet", "redis")["spec"]["template"]["metadata"]["labels"]
    assert policy["podSelector"]["matchLabels"].items() <= redis_labels.items()
    engine_labels = of_kind("Deployment", "engine")["spec"]["template"]["metadata"]["labels"]
    (rule,) = policy["ingress"]
    (source,) = rule["from"]
    assert set(source) == {"podSelector"}  # this namespace's engine pods, nothing else
    assert source["podSelector"]["matchLabels"].items() <= engine_labels.items()
    assert rule["ports"] == [{"protocol": "TCP", "port": REDIS_PORT}]


def test_only_clients_reach_the_grpc_port_and_only_prometheus_the_metrics() -> None:
    policy = policy_for("engine")
    labels = of_kind("Deployment", "engine")["spec"]["template"]["metadata"]["labels"]
    assert policy["podSelector"]["matchLabels"].items() <= labels.items()
    opened: dict[int, list[Any]] = {}
    for rule in policy["ingress"]:
        assert rule["from"] and rule["ports"], "every rule names its sources and its ports"
        for port in rule["ports"]:
            opened[port["port"]] = rule["from"]
    assert set(opened) == {GRPC_PORT, *METRICS_PORTS}
    for source in opened[GRPC_PORT]:
        assert source["podSelector"]["matchLabels"] == {"cardengine.io/client": "true"}
    for port in METRICS_PORTS:
        (source,) = opened[port]
        assert source["podSelector"]["matchLabels"] == {"app.kubernetes.io/name": "prometheus"}


def test_a_public_bind_address_is_served_with_tls_or_said_to_be_plaintext() -> None:
    """On 0.0.0.0 the server refuses plaintext unless ENGINE_INSECURE_PUBLIC=1, so each
    deployment either names TLS files from a mounted Secret or sets that flag; the variables
    it uses are ones the settings read."""
    container = engine_container()
    env = plain_env(container)
    compose = documents(DEPLOY / "compose.yaml")[0]["services"]["engine"]["environment"]
    for address, settings in ((env["ENGINE_ADDRESS"], env), (compose["ENGINE_ADDRESS"], compose)):
        assert address.startswith("0.0.0.0:")
        tls = {"ENGINE_TLS_CERT", "ENGINE_TLS_KEY"} <= set(settings)
        assert tls or settings.get("ENGINE_INSECURE_PUBLIC") == "1"
    if "ENGINE_TLS_CERT" in env:
        mounts = [m["mountPath"] for m in container.get("volumeMounts", [])]
        assert any(env["ENGINE_TLS_CERT"].startswith(path) for path in mounts)
    source = SETTINGS.read_text()
    for name in [*env, *secret_refs(container)]:
        if name.startswith("ENGINE_") or name == "REDIS_URL":
            assert f'"{name}"' in source, f"{name} is not a setting"


def test_no_setting_of_the_thread_pool_server_is_left() -> None:
    """The server is grpc.aio: processes are the one knob (ENGINE_PROCESSES).

    The deploy files are read; the README may say that there is no such setting.
    """
    for path in sorted(DEPLOY.rglob("*")):
        if path.is_file() and path.suffix != ".md":
            assert "thread" not in path.read_text().lower(), path


def test_every_process_of_a_replica_has_its_metrics_port_open() -> None:
    """The launcher gives process i the metrics port ENGINE_METRICS_PORT + i."""
    ports = {port["port"] for port in of_kind("Service", "engine-headless")["spec"]["ports"]}
    assert set(METRICS_PORTS) <= ports
    engine = documents(DEPLOY / "compose.yaml")[0]["services"]["engine"]
    assert int(engine["environment"]["ENGINE_PROCESSES"]) == PROCESSES
    assert {str(port) for port in METRICS_PORTS} <= set(engine["expose"])
    exposed = re.findall(r"^EXPOSE (.*)$", (DEPLOY / "Dockerfile").read_text(), re.MULTILINE)
    assert {str(port) for port in METRICS_PORTS} <= set(exposed[0].split())


def test_engine_runs_unprivileged() -> None:
    pod = of_kind("Deployment", "engine")["spec"]["template"]["spec"]
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["runAsUser"] != 0
    assert engine_container()["securityContext"]["allowPrivilegeEscalation"] is False


def test_selectors_reach_the_engine_pods() -> None:
    labels = of_kind("Deployment", "engine")["spec"]["template"]["metadata"]["labels"]
    for service in ("engine", "engine-headless"):
        assert of_kind("Service", service)["spec"]["selector"].items() <= labels.items()
    pdb = of_kind("PodDisruptionBudget", "engine")["spec"]["selector"]["matchLabels"]
    assert pdb.items() <= labels.items()
    target = of_kind("HorizontalPodAutoscaler", "engine")["spec"]["scaleTargetRef"]
    assert (target["kind"], target["name"]) == ("Deployment", "engine")


def test_compose_runs_two_replicas_behind_one_port() -> None:
    services = documents(DEPLOY / "compose.yaml")[0]["services"]
    assert services["engine"]["deploy"]["replicas"] == 2
    published = {name: s["ports"] for name, s in services.items() if "ports" in s}
    assert published == {"gateway": [f"${{GATEWAY_PUBLISH:-127.0.0.1:{GRPC_PORT}}}:{GRPC_PORT}"]}
    nginx = (DEPLOY / "nginx.conf").read_text()
    assert re.search(rf"server engine:{GRPC_PORT} resolve;", nginx)
    assert "grpc_pass grpc://engine;" in nginx


def test_compose_is_safe_by_default() -> None:
    """Loopback-only publish unless asked otherwise, service keys required, nginx limits set."""
    services = documents(DEPLOY / "compose.yaml")[0]["services"]
    (published,) = services["gateway"]["ports"]
    default = published.split(":-", 1)[1].split("}", 1)[0]
    assert default.startswith("127.0.0.1:"), "plaintext published beyond this host by default"
    keys = services["engine"]["environment"]["ENGINE_SERVICE_KEYS"]
    assert keys.startswith("${ENGINE_SERVICE_KEYS:?"), "the compose file must not start keyless"
    nginx = (DEPLOY / "nginx.conf").read_text()
    assert re.search(r"client_max_body_size \d+k;", nginx)
    assert re.search(r"limit_req zone=\w+ burst=\d+", nginx)
    assert re.search(r"limit_conn \w+ \d+;", nginx)


def test_dockerfile_runs_unprivileged_with_a_grpc_health_check() -> None:
    text = (DEPLOY / "Dockerfile").read_text()
    (user,) = re.findall(r"^USER (\S+)$", text, re.MULTILINE)
    assert user.split(":")[0] not in {"root", "0"}
    (check,) = re.findall(r"^\s*CMD (\[.*\])$", text, re.MULTILINE)
    assert yaml.safe_load(check) == ["python", "-m", HEALTHCHECK_MODULE]
    assert importlib.util.find_spec(HEALTHCHECK_MODULE) is not None
    assert f"EXPOSE {GRPC_PORT} {METRICS_PORT}" in text
    assert 'ENTRYPOINT ["python", "-m", "engine_service"]' in text


def compose_cli() -> list[str] | None:
    docker = shutil.which("docker")
    if docker:
        plugin = [docker, "compose"]
        if subprocess.run([*plugin, "version"], capture_output=True, check=False).returncode == 0:
            return plugin  # Compose v2, the docker plugin
    legacy = shutil.which("docker-compose")
    return [legacy] if legacy else None


def test_compose_file_passes_docker_compose_config() -> None:
    cli = compose_cli()
    if cli is None:
        pytest.skip("no docker compose CLI installed: compose.yaml checked structurally only")
    finished = subprocess.run(
        [*cli, "-f", str(DEPLOY / "compose.yaml"), "config", "-q"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert finished.returncode == 0, finished.stderr


# Replicas: the HPA sets the count, the PDB lets drains through, the pods spread out.

HOSTNAME, ZONE = "kubernetes.io/hostname", "topology.kubernetes.io/zone"


def engine_pod() -> dict[str, Any]:
    pod: dict[str, Any] = of_kind("Deployment", "engine")["spec"]["template"]
    return pod


def hpa() -> dict[str, Any]:
    spec: dict[str, Any] = of_kind("HorizontalPodAutoscaler", "engine")["spec"]
    return spec


def test_engine_replicas_spread_over_nodes_and_zones() -> None:
    """Over nodes as a rule, over zones as a preference, each counting this Deployment's
    pods of the current rollout only, on nodes that may take them."""
    deployment = of_kind("Deployment", "engine")["spec"]
    labels = engine_pod()["metadata"]["labels"]
    constraints = {c["topologyKey"]: c for c in engine_pod()["spec"]["topologySpreadConstraints"]}
    assert set(constraints) == {HOSTNAME, ZONE}
    for constraint in constraints.values():
        selector = constraint["labelSelector"]["matchLabels"]
        assert selector.items() <= labels.items(), "the constraint would count no replica"
        assert selector == deployment["selector"]["matchLabels"], "it must count these pods"
        assert constraint["maxSkew"] == 1
        # a rollout's old pods must not hold up its new ones
        assert constraint["matchLabelKeys"] == ["pod-template-hash"]
        # a cordoned node (a drain) with no replica left must not pin the minimum at 0
        assert constraint["nodeTaintsPolicy"] == "Honor"
    assert constraints[HOSTNAME]["whenUnsatisfiable"] == "DoNotSchedule"
    # one zone, or nodes without the zone label, must still schedule
    assert constraints[ZONE]["whenUnsatisfiable"] == "ScheduleAnyway"


def test_the_hpa_alone_sets_the_replica_count() -> None:
    """A count in the Deployment would be applied over the HPA's at every apply."""
    assert "replicas" not in of_kind("Deployment", "engine")["spec"]
    assert hpa()["minReplicas"] >= 2, "one node lost or drained would leave none serving"
    assert hpa()["maxReplicas"] > hpa()["minReplicas"]


def scaled(value: int | str, replicas: int) -> int:
    """A PDB's count: an integer, or a percentage of the replicas rounded up."""
    if isinstance(value, str) and value.endswith("%"):
        return math.ceil(int(value[:-1]) * replicas / 100)
    return int(value)


def allowed_disruptions(budget: dict[str, Any], replicas: int) -> int:
    """How many of ``replicas`` healthy pods a PodDisruptionBudget lets be evicted at once.

    An empty value is unset (as the Bitnami chart's ``pdb`` values take it).
    """
    if budget.get("minAvailable", "") != "":
        return max(0, replicas - scaled(budget["minAvailable"], replicas))
    return max(0, scaled(budget["maxUnavailable"], replicas))


def test_a_drain_can_always_proceed_and_leaves_most_replicas_serving() -> None:
    budget = of_kind("PodDisruptionBudget", "engine")["spec"]
    for replicas in range(hpa()["minReplicas"], hpa()["maxReplicas"] + 1):
        allowed = allowed_disruptions(budget, replicas)
        assert allowed >= 1, f"a drain would hang at {replicas} replicas"
        # the rest carry the load meanwhile: never more than half at once
        assert allowed <= replicas // 2, f"a drain could take {allowed} of {replicas} at once"
    assert allowed_disruptions({"minAvailable": 1}, 2) == 1
    assert allowed_disruptions({"maxUnavailable": "10%"}, 2) == 1
    assert allowed_disruptions({"minAvailable": "100%"}, 2) == 0
    # readiness follows Redis: with Redis down every replica is unready, and only this lets
    # a drain evict them then
    assert budget["unhealthyPodEvictionPolicy"] == "AlwaysAllow"
    rolling = of_kind("Deployment", "engine")["spec"]["strategy"]["rollingUpdate"]
    assert (rolling["maxUnavailable"], rolling["maxSurge"]) == (0, 1)


def test_scale_down_waits_and_goes_one_drain_at_a_time() -> None:
    """Each replica removed ends its WatchGame streams: not on a dip of load, and not faster
    than one replica per drain."""
    grace = engine_pod()["spec"]["terminationGracePeriodSeconds"]
    down = hpa()["behavior"]["scaleDown"]
    assert down["stabilizationWindowSeconds"] >= 120
    assert down.get("selectPolicy", "Max") in {"Max", "Min", "Disabled"}
    assert down["policies"]
    for policy in down["policies"]:
        assert (policy["type"], policy["value"]) == ("Pods", 1)
        assert policy["periodSeconds"] >= grace, "the next drain would start before this ends"


# The Redis Cluster for production: values for the Bitnami redis-cluster chart. The chart
# cannot be downloaded here, so the values are checked for what they say, not rendered.

CLUSTER_VALUES = DEPLOY / "redis-cluster" / "values.yaml"
RELEASE = "redis-cluster"
"""The Helm release deploy/README.md installs; the chart names its objects after it."""
K8S_UNITS = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "k": 10**3, "M": 10**6}
REDIS_UNITS = {"kb": 2**10, "mb": 2**20, "gb": 2**30, "k": 10**3, "m": 10**6, "g": 10**9}


def cluster_values() -> dict[str, Any]:
    (values,) = documents(CLUSTER_VALUES)
    return values


def redis_config(text: str) -> dict[str, str]:
    """Directives of a redis.conf text; the last line of a directive wins, as in Redis."""
    config: dict[str, str] = {}
    for line in text.splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            name, _, value = line.strip().partition(" ")
            config[name.lower()] = value.strip()
    return config


def size_in_bytes(text: str, units: dict[str, int]) -> int:
    """A Kubernetes quantity (``3Gi``) or a Redis memory size (``2gb``) in bytes."""
    found = re.fullmatch(r"(\d+)([a-zA-Z]*)", str(text).strip())
    assert found, text
    number, unit = found.groups()
    return int(number) * (units[unit if units is K8S_UNITS else unit.lower()] if unit else 1)


def cluster_config() -> dict[str, str]:
    return redis_config(cluster_values()["redis"]["configmap"])


def test_redis_cluster_keeps_every_move_and_never_evicts() -> None:
    values, config = cluster_values(), cluster_config()
    assert values["redis"]["useAOFPersistence"] == "yes"  # the chart sets appendonly from it
    assert config["appendonly"] == "yes"
    assert config["appendfsync"] == flag_value(redis_container()["args"], "--appendfsync")
    assert config["maxmemory-policy"] == "noeviction"
    assert values["persistence"]["enabled"] is True


def test_redis_cluster_fails_over_within_seconds() -> None:
    """cluster-node-timeout: sooner than Redis's 15 s default, not so soon that a pause of a
    healthy node (a fork, a disk stall) is taken for a failure."""
    timeout = int(cluster_config()["cluster-node-timeout"])
    assert 1000 <= timeout <= 15000
    resources = cluster_values()["redis"]["resources"]
    # throttling stalls Redis, and a stall past the node timeout fails it over
    assert "cpu" not in resources.get("limits", {})


def test_redis_cluster_has_a_replica_per_master_on_separate_nodes() -> None:
    cluster = cluster_values()["cluster"]
    replicas = cluster["replicas"]
    assert replicas >= 1
    assert cluster["nodes"] % (replicas + 1) == 0
    assert cluster["nodes"] // (replicas + 1) >= 3, "a cluster needs 3 masters to fail over"
    redis = cluster_values()["redis"]
    assert redis["podAntiAffinityPreset"] == "hard", "a master and its replica on one node"
    (zones,) = redis["topologySpreadConstraints"]
    assert (zones["topologyKey"], zones["whenUnsatisfiable"]) == (ZONE, "ScheduleAnyway")
    assert zones["labelSelector"]["matchLabels"] == {
        "app.kubernetes.io/name": "redis-cluster",
        "app.kubernetes.io/instance": RELEASE,
    }
    pdb = cluster_values()["pdb"]
    assert pdb["create"] is True
    assert 1 <= allowed_disruptions(pdb, cluster["nodes"]) < replicas + 1


def test_redis_cluster_memory_and_volume_fit_maxmemory() -> None:
    """maxmemory under the memory limit with room for the fork of an AOF rewrite and the
    buffers; a volume for the append-only file as it grows and is rewritten."""
    resources = cluster_values()["redis"]["resources"]
    limit = size_in_bytes(resources["limits"]["memory"], K8S_UNITS)
    assert size_in_bytes(resources["requests"]["memory"], K8S_UNITS) == limit
    maxmemory = size_in_bytes(cluster_config()["maxmemory"], REDIS_UNITS)
    assert 0 < maxmemory <= limit * 3 // 4
    assert size_in_bytes(cluster_values()["persistence"]["size"], K8S_UNITS) >= 3 * maxmemory
    assert size_in_bytes("2gb", REDIS_UNITS) == size_in_bytes("2Gi", K8S_UNITS)


def test_redis_cluster_password_comes_from_the_engines_secret() -> None:
    values = cluster_values()
    assert values["usePassword"] is True
    secret, key = secret_refs(engine_container())["REDIS_PASSWORD"]
    assert (values["existingSecret"], values["existingSecretPasswordKey"]) == (secret, key)
    assert not values.get("password"), "no password in the repository"
    assert not values.get("global", {}).get("redis", {}).get("password")


def test_redis_cluster_lets_in_only_the_engine() -> None:
    policy = cluster_values()["networkPolicy"]
    assert policy["enabled"] is True
    assert policy["allowExternal"] is False  # else any pod may connect
    labels = engine_pod()["metadata"]["labels"]
    (rule,) = policy["extraIngress"]
    assert rule["ports"] == [{"port": REDIS_PORT}]
    (source,) = rule["from"]
    assert set(source) == {"podSelector"}
    assert source["podSelector"]["matchLabels"].items() <= labels.items()


def test_redis_cluster_image_is_pinned_and_patched() -> None:
    """Bitnami's versioned images moved to bitnamilegacy (no fixes) in 2025: pin one that is
    kept patched, of the Redis that deploy/k8s/redis.yaml runs."""
    values = cluster_values()
    image = values["image"]
    assert image["tag"] and image["tag"] != "latest"
    assert not image["repository"].startswith("bitnamilegacy/")
    assert not (image["registry"] == "docker.io" and image["repository"].startswith("bitnami/"))
    (version,) = re.findall(r"^redis:(\d+\.\d+)", redis_container()["image"])
    assert image["tag"].startswith(version)
    # the chart refuses an image outside Bitnami's registries unless told
    assert values["global"]["security"]["allowInsecureImages"] is True


def readme_section(title: str) -> str:
    text = (DEPLOY / "README.md").read_text()
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def test_the_engine_url_in_the_readme_names_the_cluster() -> None:
    """The REDIS_URL deploy/README.md gives for the cluster is one the service accepts, set
    on the engine's container after REDIS_PASSWORD, and seeds from the chart's pods."""
    from engine_service.store.connect import parse_target
    from engine_service.store.redis_feed import BLOCK_MILLISECONDS

    section = readme_section("Redis Cluster in production")
    assert f"helm install {RELEASE} " in section
    (block,) = [b for b in re.findall(r"```yaml\n(.*?)```", section, re.DOTALL) if "patches" in b]
    (patch,) = yaml.safe_load(block)["patches"]
    assert patch["target"] == {"kind": "Deployment", "name": "engine"}
    (container,) = yaml.safe_load(patch["patch"])["spec"]["template"]["spec"]["containers"]
    assert container["name"] == engine_container()["name"]
    (variable,) = container["env"]
    assert variable["name"] == "REDIS_URL"  # replaced in place: after REDIS_PASSWORD still
    target = parse_target(variable["value"])
    assert target.kind == "cluster"
    assert target.options["password"] == "$(REDIS_PASSWORD)"
    pods = {
        f"{RELEASE}-{i}.{RELEASE}-headless" for i in range(cluster_values()["cluster"]["nodes"])
    }
    assert target.nodes
    for host, port in target.nodes:
        assert host in pods
        assert port == REDIS_PORT
    # a silent node is given up on, but not the feed's blocked XREAD
    assert target.options["socket_timeout"] > BLOCK_MILLISECONDS / 1000
    assert target.options["socket_connect_timeout"] > 0
