// The portal's role rule (docs/portal.md#users-and-roles), every role against every action, and
// the rules around it: who may change whom, the last owner, support's refund limit.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  assignableRoles,
  leavesAnOwner,
  may,
  mayManageUser,
  type PortalAction,
  ROLES,
  refundWithinLimit,
} from "../../src/domain/portal/roles.ts";

test("each role may do exactly the actions of its row", () => {
  const expected: Record<string, PortalAction[]> = {
    owner: ["links.manage", "payments.refund", "payments.manage", "developers.manage", "themes.manage", "users.manage", "security.manage"],
    admin: ["links.manage", "payments.refund", "payments.manage", "developers.manage", "themes.manage", "users.manage"],
    developer: ["developers.manage", "themes.manage"],
    support: ["payments.refund"],
    viewer: [],
  };
  const actions: PortalAction[] = [
    "links.manage",
    "payments.refund",
    "payments.manage",
    "developers.manage",
    "themes.manage",
    "users.manage",
    "security.manage",
  ];
  for (const role of ROLES) {
    assert.deepEqual(
      actions.filter((action) => may(role, action)),
      expected[role],
      role,
    );
  }
});

test("owners manage everyone; admins everyone but owners, and make no owners; others no one", () => {
  assert.ok(mayManageUser("owner", "owner", "viewer"));
  assert.ok(mayManageUser("owner", "viewer", "owner"));
  assert.ok(mayManageUser("owner", "owner", null));
  assert.ok(mayManageUser("admin", "developer", "support"));
  assert.ok(mayManageUser("admin", "viewer", null));
  assert.equal(mayManageUser("admin", "owner", "viewer"), false);
  assert.equal(mayManageUser("admin", "owner", null), false);
  assert.equal(mayManageUser("admin", "viewer", "owner"), false);
  for (const role of ["developer", "support", "viewer"] as const) assert.equal(mayManageUser(role, "viewer", "viewer"), false);
  assert.deepEqual(assignableRoles("owner"), [...ROLES]);
  assert.deepEqual(assignableRoles("admin"), ["admin", "developer", "support", "viewer"]);
  assert.deepEqual(assignableRoles("viewer"), []);
});

test("the last owner can be neither demoted nor removed; one of two can", () => {
  assert.equal(leavesAnOwner(1, "owner", "admin"), false);
  assert.equal(leavesAnOwner(1, "owner", null), false);
  assert.ok(leavesAnOwner(2, "owner", "admin"));
  assert.ok(leavesAnOwner(1, "admin", null));
  assert.ok(leavesAnOwner(1, "owner", "owner"));
});

test("support refunds up to the limit and not at all without one; viewers and developers never; others always", () => {
  assert.ok(refundWithinLimit("support", 5000, 5000));
  assert.equal(refundWithinLimit("support", 5001, 5000), false);
  assert.equal(refundWithinLimit("support", 1, null), false);
  assert.ok(refundWithinLimit("admin", 10_000_000, null));
  assert.ok(refundWithinLimit("owner", 10_000_000, 1));
  assert.equal(refundWithinLimit("viewer", 1, 5000), false);
  assert.equal(refundWithinLimit("developer", 1, 5000), false);
});
