// Browser test of examples/checkout: Debian's Chromium, driven by
// playwright-core, clicks through the sandbox's bank selection. run.sh
// starts the shop and sets CHECKOUT_URL.
"use strict";
const { test, before, after } = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const { chromium } = require("playwright-core");

const base = process.env.CHECKOUT_URL;
const artifacts = path.join(__dirname, "artifacts");
let browser;

before(async () => {
  assert.ok(base, "CHECKOUT_URL is not set: run e2e/run.sh");
  fs.mkdirSync(artifacts, { recursive: true });
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    // launch() gives Chromium a fresh temporary --user-data-dir of its own.
  });
});

after(async () => {
  if (browser) await browser.close();
});

async function newPage(mobile) {
  const ctx = await browser.newContext(mobile ? { viewport: { width: 390, height: 800 } } : { viewport: { width: 1000, height: 800 } });
  const page = await ctx.newPage();
  page.setDefaultTimeout(10000);
  return page;
}

const shot = (page, name) => page.screenshot({ path: path.join(artifacts, name + ".png") });

// recorded is what the sandbox recorded for the transaction on the result page.
async function recorded(page) {
  const id = (await page.locator("#txn").textContent()).trim();
  assert.match(id, /^\d{15}$/);
  const r = await fetch(base + "/sandbox/transactions/" + id);
  assert.equal(r.status, 200);
  return r.json();
}

async function signIn(frame, password) {
  await frame.getByRole("link", { name: "Demo Bank" }).click();
  await frame.getByLabel("Password").fill(password);
  await frame.getByRole("button", { name: "Sign in" }).click();
}

test("authorize in the lightbox: paid", async () => {
  const page = await newPage(false);
  await page.goto(base + "/");
  await page.getByRole("button", { name: "Pay by bank", exact: true }).click();
  const frame = page.frameLocator("#bankpay-lightbox iframe");
  await frame.getByRole("heading", { name: "Select your bank" }).waitFor();
  await shot(page, "01-lightbox");
  await signIn(frame, "demo");
  await frame.getByRole("heading", { name: "Choose an account" }).waitFor();
  await shot(page, "02-accounts");
  await frame.getByRole("button", { name: "Authorize" }).click();
  await page.waitForURL(/\/return\?/);
  assert.equal(await page.locator("#result").textContent(), "Paid");
  assert.match(await page.locator("main").textContent(), /Paid 25\.00 USD/);
  await shot(page, "03-result");
  const rec = await recorded(page);
  assert.equal(rec.status, 2);
  assert.ok(rec.events.length > 0, "the sandbox recorded no event");
  await page.context().close();
});

test("cancel in the inline widget, on a phone", async () => {
  const page = await newPage(true);
  await page.goto(base + "/");
  await page.getByRole("button", { name: "Pay by bank (inline)" }).click();
  const frame = page.frameLocator("#bank-widget iframe");
  await frame.getByRole("heading", { name: "Select your bank" }).waitFor();
  await shot(page, "04-widget");
  await frame.getByRole("button", { name: "Cancel" }).click();
  await page.waitForURL(/\/cancel\?/);
  assert.equal(await page.locator("#result").textContent(), "Payment canceled");
  await shot(page, "05-canceled");
  assert.equal((await recorded(page)).status, 7);
  await page.context().close();
});

test("a wrong password: error, retry, then paid", async () => {
  const page = await newPage(false);
  await page.goto(base + "/");
  await page.getByRole("button", { name: "Pay by bank", exact: true }).click();
  const frame = page.frameLocator("#bankpay-lightbox iframe");
  await signIn(frame, "wrong");
  await frame.getByRole("alert").filter({ hasText: "Wrong user name or password" }).waitFor();
  await shot(page, "06-wrong-password");
  // Retry from the keyboard.
  await frame.getByLabel("Password").fill("demo");
  await frame.getByLabel("Password").press("Enter");
  await frame.getByRole("button", { name: "Authorize" }).click();
  await page.waitForURL(/\/return\?/);
  assert.equal(await page.locator("#result").textContent(), "Paid");
  await page.context().close();
});

test("identity verification: eligible", async () => {
  const page = await newPage(false);
  await page.goto(base + "/?identity=1");
  await page.getByRole("button", { name: "Pay by bank", exact: true }).click();
  const frame = page.frameLocator("#bankpay-lightbox iframe");
  await signIn(frame, "demo");
  await page.waitForURL(/\/return\?flow=identity/);
  assert.equal(await page.locator("#result").textContent(), "Identity checked");
  await shot(page, "07-identity");
  assert.equal((await recorded(page)).status, 2);
  await page.context().close();
});

test("a bad establish signature shows the service's error", async () => {
  const page = await newPage(false);
  await page.goto(base + "/?tamper=1");
  await page.getByRole("button", { name: "Pay by bank", exact: true }).click();
  const alert = page.locator("#bankpay-lightbox").getByRole("alert");
  await alert.waitFor();
  assert.match(await alert.textContent(), /375: invalid requestSignature/);
  await shot(page, "08-bad-signature");
  await page.context().close();
});
