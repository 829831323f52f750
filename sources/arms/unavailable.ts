/**
 * An arm slot that exists in the merge but has no engine in this installation: it errors with
 * ArmUnavailableError on subscribe, which the arm runner records as status "unavailable".
 */
import { defer, throwError, type Observable } from 'rxjs';
import { ArmUnavailableError } from '../../core/errors.js';
import type { ArmHit, ArmName } from '../../core/types.js';

export function unavailableArm(arm: ArmName, reason: string): Observable<ArmHit[]> {
  return defer(() => throwError(() => new ArmUnavailableError(arm, reason)));
}
