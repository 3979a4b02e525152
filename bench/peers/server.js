// One peer server, in its own process: node server.js KIND PORT [DIR]
//   bgio-memory    boardgame.io's Server, its default in-memory storage
//   bgio-flatfile  boardgame.io's Server with FlatFile storage in DIR
//   colyseus       @colyseus/core with @colyseus/ws-transport, the HeartsRoom
// Prints one line {"serving": PORT} once it takes connections.
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const [kind, portText, dir] = process.argv.slice(2);
const port = Number(portText);

async function boardgameio(storage) {
  const { Server, FlatFile } = require("boardgame.io/server");
  const { HeartsGame } = await import("./bgio_game.js");
  const db = storage === "flatfile" ? new FlatFile({ dir, logging: false, ttl: false }) : undefined;
  const server = Server({ games: [HeartsGame], db, origins: ["http://127.0.0.1"] });
  await server.run({ port });
}

async function colyseus() {
  const { Server } = await import("@colyseus/core");
  const { WebSocketTransport } = await import("@colyseus/ws-transport");
  const { HeartsRoom } = await import("./colyseus_room.js");
  const server = new Server({ transport: new WebSocketTransport(), greet: false });
  server.define("hearts", HeartsRoom);
  await server.listen(port, "127.0.0.1");
}

const servers = {
  "bgio-memory": () => boardgameio("memory"),
  "bgio-flatfile": () => boardgameio("flatfile"),
  colyseus,
};
if (!(kind in servers)) {
  console.error(`unknown server kind ${kind}`);
  process.exit(2);
}
await servers[kind]();
console.log(JSON.stringify({ serving: port }));
