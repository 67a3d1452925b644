// Plain words for the names the API answers with. The API names each decision after the rule
// that made it (`noneAtRoot`, `atRoot` with G-1, `rootDefault`): exact for a client, opaque to
// someone who never read the seed apps. The console shows these sentences and keeps the name
// and rule id beside them, small, so that the API's answer can still be matched.

/** Why the back button shows as it does, or not at all (navigation-bar's `left.backButtonRule`). */
export const BACK_BUTTON_RULES = {
  backBarButtonItem: 'the screen below set a custom back item, and it wins',
  backButtonTitle: 'the screen below set a back button title',
  previousTitle: 'titled after the screen below, as UIKit does by default',
  genericTitle: 'just “Back”: nothing shorter to title it with',
  minimal: 'the arrow alone: the screen below asked for a minimal back button',
  hidesBackButton: 'hidden: this screen hides its back button',
  replacedByLeftItems: 'replaced: this screen puts its own items on the left',
  noneAtRoot: 'none: this is the first screen, there is nothing to go back to',
};

/** Why a pan does nothing (gestures' and evaluations' `refusal.reason`). */
export const REFUSALS = {
  atRoot: 'this is the first screen, there is nothing to go back to',
  customLeftItem: 'the back swipe is off while custom left items replace the back button',
  hiddenBackButton: 'the back swipe is off while the back button is hidden',
  notHorizontal: 'the drag was not sideways enough',
  noHorizontalVelocity: 'the finger was not moving sideways when it lifted',
  outsideEdge: 'it must start at the left edge of the screen',
  outsideInsets: 'it started outside the area this screen lets pans start in',
  noForwardTarget: 'no screen to go forward to (an XZ screen can name one)',
  forwardTargetOnStack: 'the screen to go forward to is already on the stack',
  forwardTargetIsPresented: 'the screen to go forward to is the one presented over the stack',
  stackFull: 'the stack is as deep as a session may be',
  backTargetNotOnStack: 'the screen to go back to is no longer on the stack',
};

/** Whether the title is large (navigation-bar's `largeTitle.rule`). */
export const LARGE_TITLE_RULES = {
  notPreferred: 'the bar does not use large titles',
  topItem: 'this screen asks for it',
  inherited: 'this screen follows the nearest screen below that chose',
  rootDefault: 'no screen chose, so it is large, as a first screen’s title is',
};

/** Where the bar's translucency came from (navigation-bar's `appearance.translucencySource`). */
export const APPEARANCE_SOURCES = {
  item: 'set by this screen',
  bar: 'set on the bar, for every screen',
  customBar: 'this screen’s own bar (XZ)',
  standard: 'taken from the standard look',
  standardWithTransparentBackground: 'the standard look, with a clear background',
  scrollEdge: 'taken from the look at the scroll edge',
  systemDefault: 'nothing set: iOS’s default',
  opaqueBackgroundImage: 'not translucent: the bar has an opaque background image',
};

/** Where the title came from (navigation-bar's `title.source`). */
export const TITLE_SOURCES = {
  titleView: 'a custom view in place of the title',
  title: 'the screen’s title',
  none: 'none: the screen has no title',
};

/** The recognizer that turns drags into navigation (gestures' `recognizer`). */
export const RECOGNIZERS = {
  interactivePop: 'UIKit’s swipe back: from the left edge, back one screen',
  seedFullScreenPan: 'a full-screen swipe back (seed 002)',
  xzNavigationPan: 'XZ: full-screen swipes, back and forward',
};

/** What an XZ session adds over a plain one, in a line (its button's explanation). */
export const XZ_SESSION = 'XZNavigationController (seed 003): swipe anywhere on the screen, not just from the edge; '
  + 'swipe left to go forward to a screen the top one names; each screen may have its own bar.';

/** `words[name]`, followed by the API's own name (and rule id) for reference. */
export function explain(words, name, rule) {
  const plain = words[name] || name;
  return { plain, code: rule ? `${name}, ${rule}` : name };
}

/**
 * Every number a write answers with (`version`) is the profile's event number: one count for
 * the profile's preferences, counter, font and sessions alike, so a new session can start at 10.
 */
export function versionText(version) {
  return `event #${version}`;
}

export const VERSION_HINT = 'Versions are the profile’s event numbers: every change to this profile, of any kind, takes the next one. '
  + 'Writes name the version they saw, so a change made elsewhere meanwhile is refused, not overwritten.';

/**
 * "changed by <who>, <when>" for a value's `lastChange` (null: not known). Who: the device the
 * writer named, else its token's label, else the token's id (`open`: the open mode).
 */
export function changedBy(lastChange, now = Date.now()) {
  if (!lastChange) return '';
  return `changed by ${authorName(lastChange.author)}, ${timeAgo(lastChange.at, now)}`;
}

/** How a person reads an author: its device, else its token's label, else its token. */
export function authorName(author) {
  if (!author) return 'someone before authors were recorded';
  if (author.device) return author.device;
  if (author.label) return author.label;
  return author.token === 'open' ? 'a client without a token' : `token ${author.token}`;
}

/** `at` (RFC 3339) as "just now", "5 s ago", "3 min ago", "2 h ago", "4 days ago". */
export function timeAgo(at, now = Date.now()) {
  const seconds = Math.max(0, Math.round((now - Date.parse(at)) / 1000));
  if (!Number.isFinite(seconds)) return 'at an unknown time';
  if (seconds < 5) return 'just now';
  if (seconds < 60) return `${seconds} s ago`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86400) return `${Math.floor(seconds / 3600)} h ago`;
  const days = Math.floor(seconds / 86400);
  return days === 1 ? '1 day ago' : `${days} days ago`;
}
