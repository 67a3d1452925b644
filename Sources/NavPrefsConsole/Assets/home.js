// The home page: open a profile, or pick one from the list when the token may list them.
import { api, paths } from './api.js';
import { byId, fill, h, isProfileName, links, mountChrome } from './ui.js';

mountChrome('home');

byId('open-profile').addEventListener('submit', (event) => {
  event.preventDefault();
  const name = byId('profile-input').value.trim();
  if (!isProfileName(name)) {
    byId('profile-input').setCustomValidity('1-64 letters, digits, . _ -, starting with a letter or digit');
    byId('profile-input').reportValidity();
    return;
  }
  location.href = event.submitter && event.submitter.value === 'sessions' ? links.sessions(name) : links.profile(name);
});
byId('profile-input').addEventListener('input', () => byId('profile-input').setCustomValidity(''));

/** The first profiles, when this token may list them (open mode or an admin token). */
async function showProfiles() {
  const area = byId('profiles-area');
  try {
    const page = await api('GET', `${paths.profiles}?limit=24`);
    fill(area, h('div', { class: 'profile-chips' },
      page.profiles.map((profile) => h('a', { class: 'chip', href: links.profile(profile.name) }, profile.name,
        h('small', { text: `${profile.latestEventId} ${profile.latestEventId === 1 ? 'change' : 'changes'}` }))),
      page.next ? h('a', { class: 'chip', href: '/console/admin.html', text: 'All profiles…' }) : null));
  } catch {
    fill(area);  // a profile token may not list profiles: the form is enough
  }
}

showProfiles();
window.addEventListener('navprefs:token', showProfiles);
