/** REST bodies of signing in and changing the password (snake_case JSON) parsed into the session service's inputs. */
import { AppError } from "../../errors.ts";
import {
  MIN_PASSWORD,
  passwordField,
  type LoginInput,
  type PasswordChangeInput,
} from "../../services/accounts/session-service.ts";
import { asObject } from "../../services/input.ts";

/** POST /api/session: `{ username, password }`; a field that is not text is answered like a wrong password. */
export function loginBody(body: unknown): LoginInput {
  const { username, password } = asObject(body);
  if (typeof username !== "string" || typeof password !== "string") throw new AppError("bad_credentials");
  return { username, password };
}

/** PUT /api/session/password: `{ current_password, new_password }` */
export function passwordChangeBody(body: unknown): PasswordChangeInput {
  const o = asObject(body);
  return {
    currentPassword: passwordField(o.current_password, "current_password"),
    newPassword: passwordField(o.new_password, "new_password", MIN_PASSWORD),
  };
}
