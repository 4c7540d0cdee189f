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

// recordedID is what the sandbox recorded for transaction id.
async function recordedID(id) {
  assert.match(id, /^\d{15}$/);
  const r = await fetch(base + "/sandbox/transactions/" + id);
  assert.equal(r.status, 200);
  return r.json();
}

test("authorize in the lightbox: charged with a capture, then refunded", async () => {
  const page = await newPage(false);
  await page.goto(base + "/");
  await page.getByRole("button", { name: "Pay by bank", exact: true }).click();
  const frame = page.frameLocator("#bankpay-lightbox iframe");
  await frame.getByRole("heading", { name: "Select your bank" }).waitFor();
  await shot(page, "01-lightbox");
  await signIn(frame, "demo");
  await frame.getByRole("heading", { name: "Choose an account" }).waitFor();
  await shot(page, "02-accounts");
  const shown = (await frame.locator("fieldset").textContent()).match(/Demo Checking …(\d{4})/);
  assert.ok(shown, "the account choice names the account");
  await frame.getByRole("button", { name: "Authorize" }).click();
  await page.waitForURL(/\/return\?/);
  // The Authorize event reached the shop's webhook handler, which captured
  // the price: the page follows the capture.
  await page.locator("#result", { hasText: "Charged" }).waitFor();
  assert.match(await page.locator("main").textContent(), /Charged 25\.00 USD/);
  await shot(page, "03-result");
  const auth = await recorded(page);
  assert.equal(auth.type, 1, "the authorization");
  assert.equal(auth.status, 2);
  assert.deepEqual(auth.events, ["Authorize"]);
  assert.equal(auth.accountLast4, shown[1], "the bank page showed the account the authorization records");
  const captureID = (await page.locator("#capture").textContent()).trim();
  let cap = await recordedID(captureID);
  assert.equal(cap.type, 3, "a capture (type 3), not a deposit (type 6)");
  assert.equal(cap.amount, "25.00");
  assert.equal(cap.originalTransactionId, (await page.locator("#txn").textContent()).trim());

  // Sandbox: 3 banking days pass; the capture's events reach the page.
  await page.getByRole("button", { name: /banking days pass/ }).click();
  await page.locator("#result", { hasText: "Paid" }).waitFor();
  assert.equal(await page.locator("#events").textContent(), "Process, Complete");
  cap = await recordedID(captureID);
  assert.equal(cap.status, 4, "Completed");

  // Give the money back.
  await page.getByRole("button", { name: "Refund" }).click();
  await page.locator("#result", { hasText: "Refunded" }).waitFor();
  assert.equal(await page.locator("#events").textContent(), "Process, Complete, Refund");
  await shot(page, "03b-refunded");
  cap = await recordedID(captureID);
  assert.equal(cap.status, 12, "Refunded");
  assert.deepEqual(cap.events, ["Process", "Complete", "Refund"]);
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

test("a wrong password: error, retry, then charged", async () => {
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
  await page.locator("#result", { hasText: "Charged" }).waitFor();
  assert.equal((await recordedID((await page.locator("#capture").textContent()).trim())).type, 3);
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
