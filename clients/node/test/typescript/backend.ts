// A small backend in TypeScript using the client; `tsc --noEmit -p test/typescript` checks it
// against types/ (test/types.test.js), it is not run.
import { createClient, chooseCards, errorDetails, status } from '../..';
import type { GameView__Output, WatchItem } from '../..';

export async function playOnePass(address: string): Promise<string> {
  const client = createClient(address, { language: 'fr', timeoutMs: 5000 });
  try {
    const game = await client.createGame('hearts', ['PLAYER_TYPE_HUMAN', 'PLAYER_TYPE_BOT_HEURISTIC',
      'PLAYER_TYPE_BOT_HEURISTIC', 'PLAYER_TYPE_BOT_HEURISTIC'], 7);
    const token: string = game.seat_tokens[0].token;
    let view: GameView__Output = await client.view(game.game_id, 0, token);
    const [choice] = view.legal_choices;
    try {
      await client.submit(game.game_id, 0, token, chooseCards(choice, choice.cards.slice(0, 1)), view.version);
    } catch (error) {
      const { code, reason, ruleId, violations, localizedMessage } = errorDetails(error);
      if (code !== status.FAILED_PRECONDITION) throw error;
      console.log(reason, ruleId, violations[0]?.subject, localizedMessage?.message);
    }
    view = await client.submit(game.game_id, 0, token, chooseCards(choice, choice.cards.slice(0, choice.count)),
      view.version);
    const watch = client.watch(game.game_id, { seat: 0, token, fromVersion: view.version });
    for await (const item of watch as AsyncIterable<WatchItem>) {
      if (item.message === 'ended') return item.ended.outcome?.summary ?? '';
      const version: string = item.update.version;
      const hand = item.update.view?.hearts?.hand ?? [];
      console.log(version, item.update.events.length, hand.length, watch.version);
      break;
    }
    return view.status;
  } finally {
    client.close();
  }
}
