// Screenshot of Neo4j Browser showing a graphmem graph with browser/graphmem.grass applied.
// Run by scripts/browser-screenshot, which installs Chromium and playwright-core; on its own:
//   PLAYWRIGHT_CORE=<the playwright-core package folder> BROWSER_HTTP=... \
//   BROWSER_BOLT=... BROWSER_USER=neo4j BROWSER_PASSWORD=... node browser/screenshot.mjs
// Optional: BROWSER_OWNER (demo-user), BROWSER_QUERY (part of a query title in
// browser/queries.cypher; default "hot tier"), BROWSER_PARAM_<name> (a Cypher expression
// for a :param of that query; default: the value its header shows), BROWSER_OUT
// (docs/browser.png), BROWSER_WIDTH/BROWSER_HEIGHT (1400x900), BROWSER_CHROMIUM.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "..");
const setting = (name, fallback) => {
  const value = process.env[name];
  if (value) return value;
  if (fallback === undefined) throw new Error(`${name} is required`);
  return fallback;
};
const options = {
  http: setting("BROWSER_HTTP").replace(/\/+$/, ""),
  bolt: setting("BROWSER_BOLT"),
  user: setting("BROWSER_USER", "neo4j"),
  password: setting("BROWSER_PASSWORD"),
  owner: setting("BROWSER_OWNER", "demo-user"),
  query: setting("BROWSER_QUERY", "hot tier"),
  out: resolve(setting("BROWSER_OUT", join(root, "docs", "browser.png"))),
  width: Number(setting("BROWSER_WIDTH", "1400")),
  height: Number(setting("BROWSER_HEIGHT", "900")),
  chromium: setting("BROWSER_CHROMIUM", "/usr/bin/chromium"),
};
const { chromium } = createRequire(import.meta.url)(resolve(setting("PLAYWRIGHT_CORE")));

/** The statement of browser/queries.cypher whose title holds `part`, with its header. */
function browserQuery(part) {
  const text = readFileSync(join(root, "browser", "queries.cypher"), "utf-8");
  const found = text
    .split(/;[ \t]*$/m)
    .map((chunk) => chunk.trim().split("\n\n").pop())
    .map((block) => [block, block.split("\n")[0]])
    .filter(([, title]) => title.startsWith("// graphmem: ") && title.includes(part))
    .map(([block]) => block);
  if (found.length !== 1) throw new Error(`${found.length} queries have "${part}" in their title`);
  return found[0];
}

/** Wait until `look()` gives the same answer twice, 400 ms apart (a layout or zoom at rest). */
async function settled(look, tries = 75) {
  let before = await look();
  for (let count = 0; count < tries; count += 1) {
    await new Promise((done) => setTimeout(done, 400));
    const now = await look();
    if (now === before) return;
    before = now;
  }
  throw new Error("the graph never came to rest");
}

/**
 * Zoom the drawing (Browser's own d3 zoom, by one wheel event about a computed point) so that
 * every node lies inside the canvas and left of the Overview panel, which covers the canvas's
 * right side, centred in what is left.
 */
async function fitLeftOfPanel(canvas) {
  const margin = 24;
  const geometry = await canvas.evaluate((svg) => {
    const area = svg.getBoundingClientRect();
    const panel = document.querySelector('[data-testid="vizInspector"]');
    const panelLeft = panel ? panel.getBoundingClientRect().left : area.right;
    const boxes = [...svg.querySelectorAll('g[aria-label^="graph-node"]')].map((node) =>
      node.getBoundingClientRect(),
    );
    return {
      area: {
        left: area.left,
        top: area.top,
        right: Math.min(area.right, panelLeft),
        bottom: area.bottom,
      },
      nodes: {
        left: Math.min(...boxes.map((box) => box.left)),
        top: Math.min(...boxes.map((box) => box.top)),
        right: Math.max(...boxes.map((box) => box.right)),
        bottom: Math.max(...boxes.map((box) => box.bottom)),
      },
    };
  });
  const { area, nodes } = geometry;
  const free = {
    width: area.right - area.left - 2 * margin,
    height: area.bottom - area.top - 2 * margin,
  };
  const size = { width: nodes.right - nodes.left, height: nodes.bottom - nodes.top };
  // At most 0.95: a zoom about a point moves the drawing only when it changes the scale.
  const scale = Math.min(0.95, free.width / size.width, free.height / size.height);
  // Zooming by `scale` about P keeps P in place: x' = P + scale (x - P). Choose P so that the
  // drawing's top left corner lands where the centred, shrunk drawing should start.
  const target = {
    left: area.left + margin + (free.width - scale * size.width) / 2,
    top: area.top + margin + (free.height - scale * size.height) / 2,
  };
  const x = (target.left - scale * nodes.left) / (1 - scale);
  const y = (target.top - scale * nodes.top) / (1 - scale);
  // Browser's zoom turns a wheel event into the factor 2^(-deltaY * 0.002), with a modifier key
  // held (its default asks for one).
  const deltaY = -Math.log2(scale) / 0.002;
  await canvas.evaluate(
    (svg, wheel) =>
      svg.dispatchEvent(
        new WheelEvent("wheel", {
          ...wheel,
          deltaMode: 0,
          ctrlKey: true,
          bubbles: true,
          cancelable: true,
        }),
      ),
    { clientX: x, clientY: y, deltaY },
  );
}

const say = (message) => console.error(`browser-screenshot: ${message}`);
const profile = mkdtempSync(join(tmpdir(), "graphmem-browser-"));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: options.chromium,
  headless: true,
  args: [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
  viewport: { width: options.width, height: options.height },
  deviceScaleFactor: 1,
});
try {
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(60_000);

  say(`opening ${options.http}/browser/`);
  await page.goto(`${options.http}/browser/`);
  const address = page.getByTestId("boltaddress");
  await address.waitFor();
  await address.fill(options.bolt.replace(/^[a-z+]+:\/\//, ""));
  const scheme = options.bolt.match(/^([a-z+]+:\/\/)/)?.[1];
  if (scheme) await page.getByTestId("bolt-scheme-select").selectOption(scheme);
  await page.getByTestId("username").fill(options.user);
  await page.getByTestId("password").fill(options.password);
  await page.getByTestId("connect").click();
  await page.getByTestId("disconnectedBanner").waitFor({ state: "detached" });
  // Browser runs its post-connect command (:play start) once the connection is ready; commands
  // sent before then fail with "No connection found".
  await page.getByTestId("frameCommand").filter({ hasText: ":play start" }).waitFor();
  say(`connected to ${options.bolt} as ${options.user}`);

  const editor = page.getByTestId("activeEditor");
  // One command at a time: the editor is emptied, the text inserted as a paste (no
  // auto-indent, no closing brackets added), then run; wait for the frame it makes (or, for
  // :clear, for the stream to be empty).
  async function run(command) {
    const frames = page.getByTestId("frame");
    const before = command === ":clear" ? 0 : await frames.count();
    await editor.click();
    await page.keyboard.press("ControlOrMeta+A");
    await page.keyboard.press("Delete");
    await page.keyboard.insertText(command);
    await page.getByTestId("editor-Run").click();
    await page.waitForFunction(
      ([count, clearing]) => {
        const now = document.querySelectorAll('[data-testid="frame"]').length;
        return clearing ? now === 0 : now > count;
      },
      [before, command === ":clear"],
    );
  }

  await run(":clear");
  const grass = readFileSync(join(root, "browser", "graphmem.grass"), "utf-8");
  await run(`:style\n${grass}`);
  if (await page.getByText("Could not parse grass").count()) {
    throw new Error("Browser could not parse browser/graphmem.grass");
  }
  // The :param lines of the query's header, in order (a later line for the same name wins),
  // the owner's value, and any BROWSER_PARAM_<name> (a Cypher expression), put in.
  const query = browserQuery(options.query);
  const parameters = new Map();
  for (const [, name, value] of query.matchAll(/^\/\/.*:param (\w+) => (.+)$/gm)) {
    parameters.set(name, value.trim());
  }
  parameters.set("owner", `'${options.owner.replaceAll("'", "\\'")}'`);
  for (const name of parameters.keys()) {
    const given = process.env[`BROWSER_PARAM_${name}`];
    if (given) parameters.set(name, given);
  }
  for (const [name, value] of parameters) {
    await run(`:param ${name} => ${value}`);
    await page.getByTestId("rawParamData").filter({ hasText: `"${name}"` }).last().waitFor();
  }
  await run(":clear");
  say(`running "${query.split("\n")[0].slice(3)}" for owner ${options.owner}`);
  await run(query);

  const frame = page.getByTestId("frame").first();
  const nodes = frame.locator('g[aria-label^="graph-node"]');
  await nodes
    .first()
    .waitFor()
    .catch(() => {
      throw new Error(`"${options.query}" drew no graph (no rows for ${options.owner}?)`);
    });
  // Fill the window with the result frame, let the force layout settle, zoom to fit, then
  // shrink the drawing into the part of the canvas the Overview panel (the legend) leaves free.
  await frame.locator('button[title^="Fullscreen"]').click();
  const canvas = frame.locator("svg.neod3viz");
  const drawing = () =>
    canvas.evaluate((svg) =>
      [...svg.querySelectorAll("g")].map((g) => g.getAttribute("transform")).join(" "),
    );
  await settled(drawing);
  await frame.locator('[aria-label="zoom-to-fit"]').click();
  await settled(drawing);
  await fitLeftOfPanel(canvas);
  await settled(drawing);
  say(`${await nodes.count()} nodes drawn; saving ${options.out}`);
  await page.screenshot({ path: options.out });
} catch (error) {
  const failed = join(tmpdir(), "graphmem-browser-failed.png");
  await context.pages()[0]?.screenshot({ path: failed }).catch(() => {});
  say(`failed; the page as it was: ${failed}`);
  throw error;
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
}
