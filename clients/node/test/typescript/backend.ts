// A small backend in TypeScript using the client; `tsc --noEmit -p test/typescript` checks it
// against types/ (test/types.test.js), it is not run.
import { createClient, chooseCards, describeEvent, errorDetails, GameQuotaExceeded, RateLimited, status } from '../..';
import type {
  GameInfo__Output, GameView__Output, SuggestActionResponse__Output, SuggestionValueKind, WatchItem,
} from '../..';

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
    const session = client.session(token);
    session.join(game.game_id, { seat: 0 });
    const moved = await session.move(game.game_id, 0, undefined, view.legal_actions[0], view.version);
    console.log(moved.version);
    await session.close();
    const watch = client.watch(game.game_id, { seat: 0, token, fromVersion: view.version });
    for await (const item of watch as AsyncIterable<WatchItem>) {
      if (item.message === 'ended') return item.ended.outcome?.summary ?? '';
      const version: string = item.update.version;
      const hand = item.update.view?.hearts?.hand ?? [];
      console.log(version, item.update.events.length, hand.length, watch.version);
      for (const event of item.update.events) console.log(describeEvent(event, { viewer: 0, language: 'fr' }));
      break;
    }
    return view.status;
  } finally {
    client.close();
  }
}

// A backend managing one table: a clocked, labelled game, listed, a seat handed back with a
// new token, ended early and rematched.
export async function manageTable(address: string, serviceKey: string): Promise<string> {
  const client = createClient(address, { serviceKey });
  try {
    const game = await client.createGame('hearts', ['PLAYER_TYPE_HUMAN', 'PLAYER_TYPE_BOT_RANDOM',
      'PLAYER_TYPE_BOT_RANDOM', 'PLAYER_TYPE_BOT_RANDOM'], null,
    { clock: { perDecision: 30, bank: 60, onExpiry: 'heuristic' }, labels: { room: 'a' } });
    const page = await client.listGames({ state: 'waiting', labels: { room: 'a' }, pageSize: 10 });
    for await (const each of client.listAllGames({ gameType: 'hearts' })) console.log(each.game_id);
    const info: GameInfo__Output = await client.getGame(game.game_id, game.admin_token);
    const deadline = info.clocks[0]?.deadline?.seconds;
    await client.leaveGame(game.game_id, 0, game.seat_tokens[0].token, { resign: true });
    const seat = await client.updateSeat(game.game_id, 0, game.admin_token,
      { playerType: 'PLAYER_TYPE_HUMAN', reissueToken: true });
    const ended: GameView__Output = await client.endGame(game.game_id, null, 'closing');
    const rematch = await client.rematchGame(game.game_id, game.admin_token);
    return [page.next_page_token, deadline, seat.token, ended.outcome?.ended_early, rematch.game_id].join(' ');
  } finally {
    client.close();
  }
}

// A backend over its service key's quota: the typed refusals and their details.
export async function createOrWait(address: string, serviceKey: string): Promise<number> {
  const client = createClient(address, { serviceKey, rateLimitWaits: 2, maxRateLimitWaitMs: 2000 });
  try {
    await client.createGame('hearts', ['PLAYER_TYPE_HUMAN', 'PLAYER_TYPE_BOT_RANDOM',
      'PLAYER_TYPE_BOT_RANDOM', 'PLAYER_TYPE_BOT_RANDOM'], null);
    return 0;
  } catch (error) {
    if (error instanceof GameQuotaExceeded) return error.retryDelay ?? 60;
    if (error instanceof RateLimited) return (error.retryDelay ?? 1) + error.quotaViolations.length;
    const { retryDelay, quotaViolations } = errorDetails(error);
    return (retryDelay ?? 0) + quotaViolations.length;
  } finally {
    client.close();
  }
}

// A hint for a seat: the search's move, each candidate's value in its unit, then the move played.
export async function playTheHint(address: string, gameId: string, seat: number, token: string): Promise<string> {
  const client = createClient(address);
  try {
    const hint: SuggestActionResponse__Output = await client.suggestAction(gameId, seat, token, { playouts: 16 });
    const unit: SuggestionValueKind = hint.value_kind;
    const values = hint.candidates.map((candidate) => `${candidate.value ?? '-'} over ${candidate.playouts}`);
    if (hint.action) await client.submit(gameId, seat, token, hint.action, hint.version);
    return [unit, hint.max_playouts, ...values].join(' ');
  } finally {
    client.close();
  }
}
