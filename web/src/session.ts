// A Play session over the web port's WebSocket (engine_service/web/socket.py): the seat's
// moves and its game's updates on one socket, each frame one PlayRequest or PlayResponse.
// A browser cannot set a WebSocket's headers, so the seat token rides in every request and
// the page's language in the URL.
import { create, fromBinary, type MessageInitShape, toBinary } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import {
  type PlayError,
  PlayRequestSchema,
  type PlayResponse,
  PlayResponseSchema,
  type SubmitActionRequestSchema,
  type SubmitActionResponse,
  type WatchGameRequestSchema,
  type WatchGameResponse,
} from "./gen/cardengine/v1/engine_service_pb.js";

type Answer = PlayResponse | ConnectError;

// A request's error (a google.rpc.Status) as the ConnectError its unary call would have thrown,
// details and all, so the page shows both alike.
function errorOf(status: PlayError): ConnectError {
  const error = new ConnectError(status.message, status.code as Code);
  error.details = status.details.map((detail) => ({
    type: detail.typeUrl.slice(detail.typeUrl.lastIndexOf("/") + 1),
    value: detail.value,
  }));
  return error;
}

// Where the page's own origin serves Play, answering in `language`.
export function sessionUrl(language: string): string {
  const scheme = window.location.protocol === "https:" ? "wss" : "ws";
  const query = new URLSearchParams({ language }).toString();
  return `${scheme}://${window.location.host}/cardengine.v1.EngineService/Play?${query}`;
}

export class PlaySession {
  private readonly socket: WebSocket;
  private readonly opened: Promise<void>;
  // Who waits for the answers of each request, by its ref: a move's one, a join's many.
  private readonly waiting = new Map<bigint, (answer: Answer) => void>();
  private lastRef = 0n;
  private ended: ConnectError | null = null;

  constructor(url: string) {
    this.socket = new WebSocket(url);
    this.socket.binaryType = "arraybuffer";
    let settled!: () => void;
    // Settled once the socket opens, or once it closes without having opened.
    this.opened = new Promise((resolve) => { settled = resolve; });
    this.socket.onopen = () => settled();
    this.socket.onmessage = ({ data }) => {
      const answer = fromBinary(PlayResponseSchema, new Uint8Array(data as ArrayBuffer));
      this.waiting.get(answer.ref)?.(answer);
    };
    // A session ended by a status closes with 4000 + its code; anything else is the network's.
    this.socket.onclose = ({ code, reason }) => {
      const status = code >= 4000 && code < 4017 ? (code - 4000) as Code : Code.Unavailable;
      this.ended = new ConnectError(reason || `the session closed (${code})`, status);
      for (const waiter of this.waiting.values()) waiter(this.ended);
      this.waiting.clear();
      settled();
    };
  }

  private async send(
    request: MessageInitShape<typeof PlayRequestSchema>, waiter: (answer: Answer) => void,
  ): Promise<void> {
    await this.opened;
    if (this.ended) throw this.ended;
    this.lastRef += 1n;
    this.waiting.set(this.lastRef, waiter);
    const message = create(PlayRequestSchema, { ...request, ref: this.lastRef });
    this.socket.send(toBinary(PlayRequestSchema, message));
  }

  // A move, answered as SubmitAction answers it (the seat's view), or its error thrown.
  move(token: string, move: MessageInitShape<typeof SubmitActionRequestSchema>): Promise<SubmitActionResponse> {
    return new Promise((resolve, reject) => {
      const settle = (answer: Answer): void => {
        if (answer instanceof ConnectError) { reject(answer); return; }
        this.waiting.delete(answer.ref);
        if (answer.response.case === "moved") resolve(answer.response.value);
        else if (answer.response.case === "error") reject(errorOf(answer.response.value));
      };
      this.send({ token, request: { case: "move", value: move } }, settle).catch(reject);
    });
  }

  // The joined game's WatchGame messages, until it ends; a join's error is thrown.
  async *join(token: string, join: MessageInitShape<typeof WatchGameRequestSchema>): AsyncGenerator<WatchGameResponse> {
    const queued: Answer[] = [];
    let wake: (() => void) | null = null;
    await this.send({ token, request: { case: "join", value: join } }, (answer) => {
      queued.push(answer);
      wake?.();
    });
    for (;;) {
      while (queued.length === 0) await new Promise<void>((resolve) => { wake = resolve; });
      const answer = queued.shift()!;
      if (answer instanceof ConnectError) throw answer;
      if (answer.response.case === "error") throw errorOf(answer.response.value);
      if (answer.response.case !== "watch") continue;
      yield answer.response.value;
      if (answer.response.value.message.case === "ended") return;
    }
  }

  close(): void {
    this.socket.close();
  }
}
