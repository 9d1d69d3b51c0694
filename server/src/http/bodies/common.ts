/** Shape checks shared by the REST body parsers (http/bodies/*): JSON type errors, same codes as the services'. */
import { AppError } from "../../errors.ts";
import { asObject } from "../../services/input.ts";

/** `{ confirmation }`: the token a preview returned (the service checks what it binds). */
export function confirmationBody(body: unknown): { confirmation: string } {
  const v = asObject(body).confirmation;
  if (typeof v !== "string")
    throw new AppError("confirmation_invalid", "confirmation must be the token a preview returned");
  return { confirmation: v };
}
