// The API reference page: openapi.yaml (as /openapi.json, the same document) rendered by the
// vendored Swagger UI. Its servers are this origin, and requests tried from it carry this tab's
// token, so the page can do exactly what the console can.
import { token } from './api.js';
import { byId, fill, mountChrome, problemBox } from './ui.js';

mountChrome('api');

async function render() {
  let spec;
  try {
    const response = await fetch('/openapi.json', { cache: 'no-store' });
    if (!response.ok) throw new Error(`${response.status} ${response.statusText}`);
    spec = await response.json();
  } catch (error) {
    fill(byId('page-problem'), problemBox({ title: 'The contract could not be read', problem: { detail: String(error.message || error) } }));
    return;
  }
  // The document names 127.0.0.1:8080; tried requests go to whichever address served this page.
  spec.servers = [{ url: window.location.origin, description: 'this server' }];
  window.SwaggerUIBundle({
    spec,
    dom_id: '#swagger',
    deepLinking: true,
    docExpansion: 'list',
    defaultModelsExpandDepth: 0,
    displayRequestDuration: true,
    validatorUrl: null,
    tryItOutEnabled: false,
    requestInterceptor: (request) => {
      const bearer = token.get();
      if (bearer && !request.headers.Authorization) request.headers.Authorization = `Bearer ${bearer}`;
      return request;
    },
    onComplete: () => {
      document.body.dataset.operations = String(document.querySelectorAll('.opblock').length);
    },
  });
}

render();
